//! Tokens of PISA assembly, each with its 1-based `line:col`.
//!
//! `//` line comments and `/* */` block comments are skipped. Numbers are decimal (`42`, `-1`) or
//! hexadecimal (`0xffff`); `_` may separate digits.

use super::{AsmError, Pos};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    /// An opcode, label or directive word without dot: `shfl`, `all_equal`.
    Ident(String),
    /// A dotted qualifier or directive, without the dot: `.sg` -> `sg`, `.reg` -> `reg`.
    Qual(String),
    /// A register, without the `%`.
    Reg(String),
    /// An integer literal, with its sign applied.
    Num(i128),
    Comma,
    Semi,
    Colon,
    Bang,
}

impl Tok {
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("'{s}'"),
            Tok::Qual(s) => format!("'.{s}'"),
            Tok::Reg(s) => format!("register '%{s}'"),
            Tok::Num(n) => format!("number {n}"),
            Tok::Comma => "','".into(),
            Tok::Semi => "';'".into(),
            Tok::Colon => "':'".into(),
            Tok::Bang => "'!'".into(),
        }
    }
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}
fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// Splits `src` into tokens.
pub fn lex(src: &str) -> Result<Vec<(Tok, Pos)>, AsmError> {
    let chars: Vec<char> = src.chars().collect();
    let mut toks = Vec::new();
    let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
    // Advance over `n` chars, tracking line/col.
    macro_rules! bump {
        ($n:expr) => {
            for _ in 0..$n {
                if chars[i] == '\n' {
                    line += 1;
                    col = 1;
                } else {
                    col += 1;
                }
                i += 1;
            }
        };
    }
    while i < chars.len() {
        let c = chars[i];
        let pos = Pos { line, col };
        let next = chars.get(i + 1).copied();
        if c.is_whitespace() {
            bump!(1);
        } else if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                bump!(1);
            }
        } else if c == '/' && next == Some('*') {
            bump!(2);
            loop {
                if i >= chars.len() {
                    return Err(AsmError::new(pos, "unterminated block comment '/*'"));
                }
                if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    bump!(2);
                    break;
                }
                bump!(1);
            }
        } else if c == ',' || c == ';' || c == ':' || c == '!' {
            toks.push((
                match c {
                    ',' => Tok::Comma,
                    ';' => Tok::Semi,
                    ':' => Tok::Colon,
                    _ => Tok::Bang,
                },
                pos,
            ));
            bump!(1);
        } else if c == '.' || c == '%' {
            let start = i + 1;
            let mut j = start;
            while j < chars.len() && is_ident_char(chars[j]) {
                j += 1;
            }
            let word: String = chars[start..j].iter().collect();
            if word.is_empty() {
                let what = if c == '.' { "qualifier" } else { "register name" };
                return Err(AsmError::new(pos, format!("expected a {what} after '{c}'")));
            }
            if c == '%' && !is_ident_start(word.chars().next().unwrap_or('0')) {
                return Err(AsmError::new(
                    pos,
                    format!("register name '%{word}' must start with a letter or '_'"),
                ));
            }
            toks.push((if c == '.' { Tok::Qual(word) } else { Tok::Reg(word) }, pos));
            bump!(j - i);
        } else if c.is_ascii_digit() || (c == '-' && next.is_some_and(|d| d.is_ascii_digit())) {
            let mut j = i;
            if c == '-' {
                j += 1;
            }
            while j < chars.len() && (is_ident_char(chars[j])) {
                j += 1;
            }
            let text: String = chars[i..j].iter().collect();
            let n = parse_number(&text).ok_or_else(|| {
                AsmError::new(pos, format!("malformed number '{text}' (use decimal or 0x hex)"))
            })?;
            toks.push((Tok::Num(n), pos));
            bump!(j - i);
        } else if is_ident_start(c) {
            let mut j = i;
            while j < chars.len() && is_ident_char(chars[j]) {
                j += 1;
            }
            toks.push((Tok::Ident(chars[i..j].iter().collect()), pos));
            bump!(j - i);
        } else {
            return Err(AsmError::new(pos, format!("unexpected character {c:?}")));
        }
    }
    Ok(toks)
}

fn parse_number(text: &str) -> Option<i128> {
    let (neg, body) = match text.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, text),
    };
    let digits: String = body.chars().filter(|&c| c != '_').collect();
    if digits.is_empty() || body.starts_with('_') {
        return None;
    }
    let v = if let Some(h) = digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        if h.is_empty() || h.len() > 30 {
            return None;
        }
        i128::from_str_radix(h, 16).ok()?
    } else {
        if digits.len() > 30 || !digits.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        digits.parse::<i128>().ok()?
    };
    Some(if neg { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_and_kinds() {
        let t = lex("shfl.up.32b %r, %a, 0x1_F, -2; // c\n/* x\n */ lbl:").unwrap();
        let kinds: Vec<_> = t.iter().map(|(k, _)| k.clone()).collect();
        assert_eq!(
            kinds,
            vec![
                Tok::Ident("shfl".into()),
                Tok::Qual("up".into()),
                Tok::Qual("32b".into()),
                Tok::Reg("r".into()),
                Tok::Comma,
                Tok::Reg("a".into()),
                Tok::Comma,
                Tok::Num(31),
                Tok::Comma,
                Tok::Num(-2),
                Tok::Semi,
                Tok::Ident("lbl".into()),
                Tok::Colon,
            ]
        );
        assert_eq!(t[3].1, Pos { line: 1, col: 13 });
        assert_eq!(t[11].1, Pos { line: 3, col: 5 });
    }

    #[test]
    fn errors_carry_positions() {
        let e = lex("iadd.32b %a, %b, 12q;").unwrap_err();
        assert_eq!((e.pos.line, e.pos.col), (1, 18));
        assert!(e.message.contains("malformed number '12q'"), "{e}");
        let e = lex("\n  /* open").unwrap_err();
        assert_eq!((e.pos.line, e.pos.col), (2, 3));
        assert!(lex("x # y").unwrap_err().message.contains("unexpected character '#'"));
    }
}

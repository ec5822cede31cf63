//! Lane diagrams in the notation of the spec's `shfl` examples (§7.4):
//!
//! ```text
//! // %a |31|30|29|28|27|26|25|24|23|...
//! // %r |  |  |31|30|29|28|27|26|  |...
//! ```
//! The source row lists lane numbers from 31 down to 0. In the destination row a number is the
//! lane whose `src0` the lane received, a blank is a lane that kept its own `src0` (out of bounds
//! or source lane not participating), and `--` is a lane that did not write `dst`.

use crate::op::LANES;
use crate::shfl::ShflSource;

/// Renders the two rows for a shuffle from `src` into `dst` (register names with `%`).
pub fn render(src: &str, dst: &str, sources: &[ShflSource; LANES]) -> String {
    let w = src.len().max(dst.len());
    let mut a = format!("// {src:<w$} |");
    let mut r = format!("// {dst:<w$} |");
    for lane in (0..LANES).rev() {
        a.push_str(&format!("{lane:>2}|"));
        r.push_str(&match sources[lane] {
            ShflSource::Lane(s) => format!("{s:>2}|"),
            ShflSource::Own => "  |".to_string(),
            ShflSource::NotWritten => "--|".to_string(),
        });
    }
    format!("{a}\n{r}\n")
}

/// One cell of a diagram row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    Lane(u32),
    Blank,
    NotWritten,
}

/// One row of a diagram as written in the spec: register name and the cells from lane 31 down.
/// A trailing `..` (truncation) ends the row.
pub fn parse_row(line: &str) -> Option<(String, Vec<Cell>)> {
    let body = line.trim().strip_prefix("//")?.trim_start();
    let (name, rest) = body.split_once('|')?;
    let mut cells = Vec::new();
    for cell in rest.split('|') {
        let c = cell.trim();
        if c == ".." {
            break;
        }
        if cell.is_empty() {
            continue; // after the final '|'
        }
        cells.push(match c {
            "" => Cell::Blank,
            "--" => Cell::NotWritten,
            n => Cell::Lane(n.parse().ok()?),
        });
    }
    Some((name.trim().to_string(), cells))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_spec_rows() {
        let (n, c) =
            parse_row("// %r |  |  |31|30|29|28|27|26|  |  |23|22|21|20|19|18|  |..").unwrap();
        assert_eq!(n, "%r");
        assert_eq!(c.len(), 17);
        assert_eq!(&c[..4], &[Cell::Blank, Cell::Blank, Cell::Lane(31), Cell::Lane(30)]);
    }

    #[test]
    fn render_round_trips() {
        let mut s = [ShflSource::Own; LANES];
        s[3] = ShflSource::Lane(7);
        s[0] = ShflSource::NotWritten;
        let text = render("%a", "%r", &s);
        let mut lines = text.lines();
        let (_, a) = parse_row(lines.next().unwrap()).unwrap();
        let (_, r) = parse_row(lines.next().unwrap()).unwrap();
        assert_eq!(a[0], Cell::Lane(31));
        assert_eq!(a.len(), 32);
        assert_eq!(r.len(), 32);
        assert_eq!(r[31 - 3], Cell::Lane(7));
        assert_eq!(r[31], Cell::NotWritten);
        assert_eq!(r[0], Cell::Blank);
    }
}

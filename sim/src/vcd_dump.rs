//! A waveform of one case, as VCD (the `vcd` crate) or FST (the `fst-writer` crate: smaller, read
//! by GTKWave and Surfer): the unit's ports cycle by cycle (one signal per lane for the wide
//! buses) plus, in scope `model`, the reference model's expected `dst`/`wen` and a per-lane
//! mismatch vector. Both formats are written by the same code through [`WaveSink`].

use std::io::{Seek, Write};

use crate::unit::{PortIn, PortOut, RtlUnit};

/// The waveform formats `--wave-format` offers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WaveFormat {
    #[default]
    Vcd,
    Fst,
}

impl WaveFormat {
    /// The file extension (`vcd`, `fst`).
    pub fn extension(self) -> &'static str {
        match self {
            WaveFormat::Vcd => "vcd",
            WaveFormat::Fst => "fst",
        }
    }
}

impl std::str::FromStr for WaveFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "vcd" => Ok(WaveFormat::Vcd),
            "fst" => Ok(WaveFormat::Fst),
            _ => Err(format!("'{s}' is not a waveform format (vcd or fst)")),
        }
    }
}

/// What the case's waveform is written through: scopes, wires, then value changes in time
/// order.
pub trait WaveSink {
    type Id: Copy;
    fn scope(&mut self, name: &str) -> std::io::Result<()>;
    fn upscope(&mut self) -> std::io::Result<()>;
    fn wire(&mut self, width: u32, name: &str) -> std::io::Result<Self::Id>;
    fn end_definitions(&mut self) -> std::io::Result<()>;
    fn time(&mut self, t: u64) -> std::io::Result<()>;
    /// The low `width` bits of `v`.
    fn change(&mut self, id: Self::Id, width: u32, v: u64) -> std::io::Result<()>;
    fn finish(self) -> std::io::Result<()>;
}

/// VCD through the `vcd` crate (time unit 1 ns).
pub struct VcdSink<W: Write>(vcd::Writer<W>);

impl<W: Write> VcdSink<W> {
    pub fn new(out: W) -> std::io::Result<Self> {
        let mut w = vcd::Writer::new(out);
        w.timescale(1, vcd::TimescaleUnit::NS)?;
        Ok(VcdSink(w))
    }
}

impl<W: Write> WaveSink for VcdSink<W> {
    type Id = vcd::IdCode;
    fn scope(&mut self, name: &str) -> std::io::Result<()> {
        self.0.add_module(name)
    }
    fn upscope(&mut self) -> std::io::Result<()> {
        self.0.upscope()
    }
    fn wire(&mut self, width: u32, name: &str) -> std::io::Result<vcd::IdCode> {
        self.0.add_wire(width, name)
    }
    fn end_definitions(&mut self) -> std::io::Result<()> {
        self.0.enddefinitions()
    }
    fn time(&mut self, t: u64) -> std::io::Result<()> {
        self.0.timestamp(t)
    }
    fn change(&mut self, id: vcd::IdCode, width: u32, v: u64) -> std::io::Result<()> {
        let bit = |i: u32| if v >> i & 1 != 0 { vcd::Value::V1 } else { vcd::Value::V0 };
        if width == 1 {
            self.0.change_scalar(id, bit(0))
        } else {
            self.0.change_vector(id, (0..width).rev().map(bit))
        }
    }
    fn finish(mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

fn fst_io(e: fst_writer::FstWriteError) -> std::io::Error {
    match e {
        fst_writer::FstWriteError::Io(e) => e,
        e => std::io::Error::other(e.to_string()),
    }
}

/// FST through the `fst-writer` crate (time unit 1 ns): the header (scopes, wires) first, then
/// the value changes.
pub struct FstSink<W: Write + Seek> {
    header: Option<fst_writer::FstHeaderWriter<W>>,
    body: Option<fst_writer::FstBodyWriter<W>>,
}

impl<W: Write + Seek> FstSink<W> {
    pub fn new(out: W) -> std::io::Result<Self> {
        let info = fst_writer::FstInfo {
            start_time: 0,
            timescale_exponent: -9,
            version: format!("pisa-sim {}", env!("CARGO_PKG_VERSION")),
            date: String::new(),
            file_type: fst_writer::FstFileType::Verilog,
        };
        let header = fst_writer::FstHeaderWriter::new(out, &info).map_err(fst_io)?;
        Ok(FstSink { header: Some(header), body: None })
    }

    fn header(&mut self) -> std::io::Result<&mut fst_writer::FstHeaderWriter<W>> {
        self.header.as_mut().ok_or_else(|| std::io::Error::other("FST: definitions after values"))
    }

    fn body(&mut self) -> std::io::Result<&mut fst_writer::FstBodyWriter<W>> {
        self.body.as_mut().ok_or_else(|| std::io::Error::other("FST: values before definitions"))
    }
}

impl<W: Write + Seek> WaveSink for FstSink<W> {
    type Id = fst_writer::FstSignalId;
    fn scope(&mut self, name: &str) -> std::io::Result<()> {
        self.header()?.scope(name, "", fst_writer::FstScopeType::Module).map_err(fst_io)
    }
    fn upscope(&mut self) -> std::io::Result<()> {
        self.header()?.up_scope().map_err(fst_io)
    }
    fn wire(&mut self, width: u32, name: &str) -> std::io::Result<fst_writer::FstSignalId> {
        self.header()?
            .var(
                name,
                fst_writer::FstSignalType::bit_vec(width),
                fst_writer::FstVarType::Wire,
                fst_writer::FstVarDirection::Implicit,
                None,
            )
            .map_err(fst_io)
    }
    fn end_definitions(&mut self) -> std::io::Result<()> {
        let h = self.header.take().ok_or_else(|| std::io::Error::other("FST: ended twice"))?;
        self.body = Some(h.finish().map_err(fst_io)?);
        Ok(())
    }
    fn time(&mut self, t: u64) -> std::io::Result<()> {
        self.body()?.time_change(t).map_err(fst_io)
    }
    fn change(&mut self, id: fst_writer::FstSignalId, width: u32, v: u64) -> std::io::Result<()> {
        let bits: Vec<u8> =
            (0..width).rev().map(|i| if v >> i & 1 != 0 { b'1' } else { b'0' }).collect();
        self.body()?.signal_change(id, &bits).map_err(fst_io)
    }
    fn finish(mut self) -> std::io::Result<()> {
        let b = self.body.take().ok_or_else(|| std::io::Error::other("FST: no values"))?;
        b.finish().map_err(fst_io)?.flush()
    }
}

/// Replays `inp` alone on `unit` (a fresh model of the failing configuration) and writes the
/// waveform to `out` in `format`.
pub fn write_case_as<W: Write + Seek>(
    format: WaveFormat,
    out: W,
    unit: &mut RtlUnit,
    inp: &PortIn<'_>,
    expected: &PortOut,
) -> std::io::Result<()> {
    match format {
        WaveFormat::Vcd => write_waves(VcdSink::new(out)?, unit, inp, expected),
        WaveFormat::Fst => write_waves(FstSink::new(out)?, unit, inp, expected),
    }
}

fn write_waves<S: WaveSink>(
    mut w: S,
    unit: &mut RtlUnit,
    inp: &PortIn<'_>,
    expected: &PortOut,
) -> std::io::Result<()> {
    let n = unit.lanes();
    let lanes = n as u32;
    w.scope("pisa_sg_unit")?;
    let clk = w.wire(1, "clk_i")?;
    let valid_i = w.wire(1, "valid_i")?;
    let op = w.wire(8, "op_i")?;
    let mask = w.wire(32, "mask_i")?;
    let active = w.wire(lanes, "activemask_i")?;
    let per_lane = |w: &mut S, name: &str| -> std::io::Result<Vec<S::Id>> {
        (0..n).map(|l| w.wire(32, &format!("{name}_lane{l}"))).collect()
    };
    let src0 = per_lane(&mut w, "src0_i")?;
    let src1 = per_lane(&mut w, "src1_i")?;
    let dst = per_lane(&mut w, "dst_o")?;
    let wen = w.wire(lanes, "wen_o")?;
    let valid_o = w.wire(1, "valid_o")?;
    w.upscope()?;
    w.scope("model")?;
    let exp_dst = per_lane(&mut w, "expected_dst")?;
    let exp_wen = w.wire(lanes, "expected_wen")?;
    let bad = w.wire(lanes, "mismatch_lanes")?;
    w.upscope()?;
    w.end_definitions()?;

    let zeros = vec![0u32; n];
    let mut t = 0u64;
    let cycles = unit.latency().max(1);
    for c in 0..=cycles {
        let issuing = c == 0;
        let now = if issuing {
            inp.clone()
        } else {
            PortIn { op: 0, src0: &zeros, src1: &zeros, mask: 0, activemask: 0 }
        };
        unit.drive(&now, issuing, true);
        unit.eval();
        let (o, v) = unit.sample();
        w.time(t)?;
        w.change(clk, 1, 0)?;
        w.change(valid_i, 1, issuing as u64)?;
        w.change(op, 8, now.op as u64)?;
        w.change(mask, 32, now.mask as u64)?;
        w.change(active, lanes, now.activemask as u64)?;
        for l in 0..n {
            w.change(src0[l], 32, now.src0[l] as u64)?;
            w.change(src1[l], 32, now.src1[l] as u64)?;
            w.change(dst[l], 32, o.dst[l] as u64)?;
        }
        w.change(wen, lanes, o.wen as u64)?;
        w.change(valid_o, 1, v as u64)?;
        let at_result = v || (unit.latency() == 0 && issuing);
        let mism: u64 = if at_result {
            (0..n)
                .filter(|&l| {
                    (o.wen ^ expected.wen) >> l & 1 != 0
                        || (expected.wen >> l & 1 != 0 && o.dst[l] != expected.dst[l])
                })
                .fold(0, |m, l| m | 1 << l)
        } else {
            0
        };
        for (&id, &want) in exp_dst.iter().zip(&expected.dst) {
            w.change(id, 32, if at_result { want as u64 } else { 0 })?;
        }
        w.change(exp_wen, lanes, if at_result { expected.wen as u64 } else { 0 })?;
        w.change(bad, lanes, mism)?;
        if unit.latency() == 0 {
            break;
        }
        t += 5;
        w.time(t)?;
        w.change(clk, 1, 1)?;
        unit.tick();
        t += 5;
    }
    w.time(t + 5)?;
    w.finish()
}

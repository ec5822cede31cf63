//! A VCD of one case, written with the `vcd` crate: the unit's ports cycle by cycle (one signal
//! per lane for the wide buses) plus, in scope `model`, the reference model's expected `dst`/`wen`
//! and a per-lane mismatch vector.

use std::io::Write;

use vcd::{IdCode, TimescaleUnit, Value};

use crate::unit::{PortIn, PortOut, RtlUnit};

fn bits(v: u64, width: u32) -> Vec<Value> {
    (0..width).rev().map(|i| if v >> i & 1 != 0 { Value::V1 } else { Value::V0 }).collect()
}

/// Replays `inp` alone on `unit` (a fresh model of the failing configuration) and writes the
/// waveform to `out`.
pub fn write_case<W: Write>(
    out: W,
    unit: &mut RtlUnit,
    inp: &PortIn<'_>,
    expected: &PortOut,
) -> std::io::Result<()> {
    let n = unit.lanes();
    let mut w = vcd::Writer::new(out);
    w.timescale(1, TimescaleUnit::NS)?;
    w.add_module("pisa_sg_unit")?;
    let clk = w.add_wire(1, "clk_i")?;
    let valid_i = w.add_wire(1, "valid_i")?;
    let op = w.add_wire(8, "op_i")?;
    let mask = w.add_wire(32, "mask_i")?;
    let active = w.add_wire(n as u32, "activemask_i")?;
    let src0: Vec<IdCode> =
        (0..n).map(|l| w.add_wire(32, &format!("src0_i_lane{l}"))).collect::<Result<_, _>>()?;
    let src1: Vec<IdCode> =
        (0..n).map(|l| w.add_wire(32, &format!("src1_i_lane{l}"))).collect::<Result<_, _>>()?;
    let dst: Vec<IdCode> =
        (0..n).map(|l| w.add_wire(32, &format!("dst_o_lane{l}"))).collect::<Result<_, _>>()?;
    let wen = w.add_wire(n as u32, "wen_o")?;
    let valid_o = w.add_wire(1, "valid_o")?;
    w.upscope()?;
    w.add_module("model")?;
    let exp_dst: Vec<IdCode> = (0..n)
        .map(|l| w.add_wire(32, &format!("expected_dst_lane{l}")))
        .collect::<Result<_, _>>()?;
    let exp_wen = w.add_wire(n as u32, "expected_wen")?;
    let bad = w.add_wire(n as u32, "mismatch_lanes")?;
    w.upscope()?;
    w.enddefinitions()?;

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
        w.timestamp(t)?;
        w.change_scalar(clk, Value::V0)?;
        w.change_scalar(valid_i, if issuing { Value::V1 } else { Value::V0 })?;
        w.change_vector(op, bits(now.op as u64, 8))?;
        w.change_vector(mask, bits(now.mask as u64, 32))?;
        w.change_vector(active, bits(now.activemask as u64, n as u32))?;
        for l in 0..n {
            w.change_vector(src0[l], bits(now.src0[l] as u64, 32))?;
            w.change_vector(src1[l], bits(now.src1[l] as u64, 32))?;
            w.change_vector(dst[l], bits(o.dst[l] as u64, 32))?;
        }
        w.change_vector(wen, bits(o.wen as u64, n as u32))?;
        w.change_scalar(valid_o, if v { Value::V1 } else { Value::V0 })?;
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
            w.change_vector(id, bits(if at_result { want as u64 } else { 0 }, 32))?;
        }
        w.change_vector(exp_wen, bits(if at_result { expected.wen as u64 } else { 0 }, n as u32))?;
        w.change_vector(bad, bits(mism, n as u32))?;
        if unit.latency() == 0 {
            break;
        }
        t += 5;
        w.timestamp(t)?;
        w.change_scalar(clk, Value::V1)?;
        unit.tick();
        t += 5;
    }
    w.timestamp(t + 5)?;
    w.flush()
}

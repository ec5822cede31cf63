// C ABI over one Verilated model of the unit (class Vpisa, from `verilator --prefix Vpisa`),
// compiled with it into one shared library per configuration by pisa-sim (src/model.rs).
// One VerilatedContext per model instance, so instances on different threads are independent.
// PISA_LANES (the lane count) is defined on the compiler's command line.
#include <cstdint>
#include "Vpisa.h"
#include "verilated.h"

namespace {
struct Sim {
    VerilatedContext* ctx;
    Vpisa* m;
};

inline void drive(Vpisa* m, uint32_t op, const uint32_t* src0, const uint32_t* src1, uint32_t mask,
                  uint32_t active, uint32_t valid, uint32_t rst_n) {
    // src0_i / src1_i are at least 128 bits wide: Verilator holds them as arrays of words
    for (int i = 0; i < PISA_LANES; i++) {
        m->src0_i[i] = src0[i];
        m->src1_i[i] = src1[i];
    }
    m->mask_i = mask;
    m->activemask_i = PISA_LANES == 32 ? active : (active & ((1u << (PISA_LANES % 32)) - 1u));
    m->op_i = op & 0xFFu;
    m->valid_i = valid & 1u;
    m->rst_ni = rst_n & 1u;
}

inline void tick(Sim* s) {
    s->m->clk_i = 1;
    s->m->eval();
    s->ctx->timeInc(1);
    s->m->clk_i = 0;
    s->m->eval();
    s->ctx->timeInc(1);
}

inline void sample(Vpisa* m, uint32_t* dst, uint32_t* wen, uint32_t* valid) {
    for (int i = 0; i < PISA_LANES; i++) dst[i] = m->dst_o[i];
    *wen = m->wen_o;
    *valid = m->valid_o;
}
}  // namespace

extern "C" {

// The shim's interface version; pisa-sim refuses a library with another one.
uint32_t pisa_sim_abi() { return 4; }

uint32_t pisa_sim_lanes() { return PISA_LANES; }

void* pisa_sim_new() {
    Sim* s = new Sim;
    s->ctx = new VerilatedContext;
    s->m = new Vpisa{s->ctx, "pisa_sg_unit"};
    s->m->clk_i = 0;
    s->m->rst_ni = 0;
    s->m->eval();
    return s;
}

void pisa_sim_free(void* p) {
    Sim* s = static_cast<Sim*>(p);
    s->m->final();
    delete s->m;
    delete s->ctx;
    delete s;
}

// src0, src1: PISA_LANES words each (lane i = word i).
void pisa_sim_set(void* p, const uint32_t* src0, const uint32_t* src1, uint32_t mask, uint32_t active,
                  uint32_t op, uint32_t valid, uint32_t rst_n) {
    drive(static_cast<Sim*>(p)->m, op, src0, src1, mask, active, valid, rst_n);
}

void pisa_sim_eval(void* p) { static_cast<Sim*>(p)->m->eval(); }

// One clock cycle: rising edge, then falling edge.
void pisa_sim_tick(void* p) { tick(static_cast<Sim*>(p)); }

void pisa_sim_get(void* p, uint32_t* dst, uint32_t* wen, uint32_t* valid) {
    sample(static_cast<Sim*>(p)->m, dst, wen, valid);
}

// `n` cycles in one call. Cycle c drives op[c], src0/src1[c*PISA_LANES ..], mask[c], active[c]
// with valid_i = valid[c] and rst_ni = 1; a combinational unit (clocked = 0) then evaluates, a
// pipelined one clocks once. The outputs after the cycle go to dst[c*PISA_LANES ..], wen[c],
// valid_o[c].
void pisa_sim_cycles(void* p, uint32_t n, uint32_t clocked, const uint32_t* op, const uint32_t* src0,
                     const uint32_t* src1, const uint32_t* mask, const uint32_t* active,
                     const uint32_t* valid, uint32_t* dst, uint32_t* wen, uint32_t* valid_o) {
    Sim* s = static_cast<Sim*>(p);
    for (uint32_t c = 0; c < n; c++) {
        drive(s->m, op[c], src0 + (size_t)c * PISA_LANES, src1 + (size_t)c * PISA_LANES, mask[c],
              active[c], valid[c], 1u);
        if (clocked) {
            tick(s);
        } else {
            s->m->eval();
        }
        sample(s->m, dst + (size_t)c * PISA_LANES, wen + c, valid_o + c);
    }
}

// A block of operations read and written in place, one call into the model: operation k's
// operands are the `SgInputs<PISA_LANES>` (`#[repr(C)]`: src0 words, src1 words, mask,
// activemask) at `inputs + k * stride` bytes, its opcode `ops[k]`. Cycle c of the `n` issues
// operation `sched[c]`, or nothing (valid_i low, inputs zero) where it is negative; rst_ni is 1.
// A combinational unit (clocked = 0) evaluates each cycle, a pipelined one clocks once. The
// results, in issue order, go to `out` as `SgOutputs<PISA_LANES>` (`#[repr(C)]`: dst words, wen):
// a combinational unit's of every cycle that issued, a pipelined one's of every cycle with
// valid_o. At most `max_out` are written; returns how many there were.
uint32_t pisa_sim_run(void* p, uint32_t n, uint32_t clocked, const int32_t* sched,
                      const uint8_t* inputs, size_t stride, const uint8_t* ops, uint32_t* out,
                      uint32_t max_out) {
    Sim* s = static_cast<Sim*>(p);
    static const uint32_t zero[PISA_LANES] = {};
    uint32_t results = 0;
    for (uint32_t c = 0; c < n; c++) {
        const int32_t k = sched[c];
        if (k >= 0) {
            const uint32_t* w = reinterpret_cast<const uint32_t*>(inputs + (size_t)k * stride);
            drive(s->m, ops[k], w, w + PISA_LANES, w[2 * PISA_LANES], w[2 * PISA_LANES + 1], 1u, 1u);
        } else {
            drive(s->m, 0u, zero, zero, 0u, 0u, 0u, 1u);
        }
        if (clocked) {
            tick(s);
        } else {
            s->m->eval();
        }
        const bool result = clocked ? s->m->valid_o != 0 : k >= 0;
        if (result) {
            if (results < max_out) {
                uint32_t* o = out + (size_t)results * (PISA_LANES + 1);
                uint32_t valid;
                sample(s->m, o, o + PISA_LANES, &valid);
            }
            results++;
        }
    }
    return results;
}

// Selects mutant `k` of a mutated netlist (its `mutsel` input; 0: no mutation): 0, or -1 when
// the model has no `mutsel` input (PISA_MUTSEL undefined).
int32_t pisa_sim_mutant(void* p, uint32_t k) {
#ifdef PISA_MUTSEL
    static_cast<Sim*>(p)->m->mutsel = k;
    return 0;
#else
    (void)p;
    (void)k;
    return -1;
#endif
}

// Writes the instance's code coverage (Verilator's coverage.dat) to `path`: 0, or -1 when the
// model was built without coverage points (VM_COVERAGE=0).
int32_t pisa_sim_coverage_write(void* p, const char* path) {
#if VM_COVERAGE
    static_cast<Sim*>(p)->ctx->coveragep()->write(path);
    return 0;
#else
    (void)p;
    (void)path;
    return -1;
#endif
}

}  // extern "C"

//! The quadrants subgroup API suite on the reference model.

#[macro_use]
mod quadrants_suite;

quadrants_suite!(|| pisa_model::RefBackend);

//! Why a proof could not run at all.

/// Why proving could not run at all.
#[derive(Debug, thiserror::Error)]
pub enum ProveError {
    /// Bad arguments or unreadable input.
    #[error("{0}")]
    Input(String),
    /// yosys or ABC is missing.
    #[error("{tool} not found ({why}); install it with scripts/install-deps.sh or set {var}")]
    Tool { tool: String, var: &'static str, why: String },
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

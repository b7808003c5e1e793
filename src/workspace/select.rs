//! The catalog selection: lifecycle, max risk, tag, run_together expansion, order.

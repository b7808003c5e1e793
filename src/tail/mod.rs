//! Following a JSON Lines file while another process writes it: offsets, partial
//! lines, truncation, replacement. No terminal.

use clap::Parser;

fn main() -> std::process::ExitCode {
    let cli = testdeck::cli::Cli::parse();
    testdeck::cli::dispatch(cli)
}

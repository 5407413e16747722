// mimalloc: glibc's malloc and free were a quarter of the server's CPU per command (issue 31).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[actix_web::main]
async fn main() {
    api::cli::init_tracing();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Err(error) = api::cli::run(args).await {
        eprintln!("homestretch: {error}");
        std::process::exit(match error {
            api::cli::CliError::Usage(_) => 2,
            _ => 1,
        });
    }
}

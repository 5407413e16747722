//! A loopback HTTP server standing in for a webhook receiver or a push service, in the tests and
//! drills (`127.0.0.1` is the tests' allowed notification host).

use actix_web::web::Bytes;
use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use std::future::Future;
use std::net::TcpListener;

/// Serves every request with `handle` on `127.0.0.1` (a free port, `workers` threads) until the
/// test's runtime ends; returns the base URL, `http://127.0.0.1:<port>`.
pub fn serve<F, Fut>(workers: usize, handle: F) -> String
where
    F: Fn(HttpRequest, Bytes) -> Fut + Clone + Send + 'static,
    Fut: Future<Output = HttpResponse> + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let address = listener.local_addr().expect("address");
    let server = HttpServer::new(move || App::new().default_service(web::to(handle.clone())))
        .workers(workers)
        .listen(listener)
        .expect("listen")
        .run();
    actix_web::rt::spawn(server);
    format!("http://{address}")
}

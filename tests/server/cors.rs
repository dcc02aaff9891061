//! CORS for gRPC-Web over a real socket on 127.0.0.1: a browser's preflight
//! from a listed origin is granted with the gRPC-Web headers, any other
//! origin gets no grant, the answers expose the status headers, and a
//! malformed origin list stops the server at start-up, naming the entry.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::process::Command;

use prost::Message;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::common::server::{self as test_server, TestServer};

const LISTED: &str = "https://play.example,http://127.0.0.1:8080";

/// The status code and headers (names lowercased) of a raw HTTP/1.1 answer.
fn head(response: &[u8]) -> (u16, HashMap<String, String>) {
    let text = String::from_utf8_lossy(response);
    let head = text.split("\r\n\r\n").next().unwrap_or_default();
    let mut lines = head.lines();
    let status = lines.next().and_then(|line| line.split(' ').nth(1)).and_then(|s| s.parse().ok());
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    (status.unwrap_or_else(|| panic!("no status line in {text}")), headers)
}

/// A comma-separated header value as a lowercase list.
fn list(headers: &HashMap<String, String>, name: &str) -> Vec<String> {
    headers.get(name).map_or_else(Vec::new, |value| {
        value.split(',').map(|item| item.trim().to_ascii_lowercase()).collect()
    })
}

/// What a browser sends before a gRPC-Web call from `origin`.
async fn preflight(addr: SocketAddr, origin: &str) -> (u16, HashMap<String, String>) {
    let mut socket = TcpStream::connect(addr).await.expect("connect");
    let request = format!(
        "OPTIONS /arbiter.v1.RulesService/Perft HTTP/1.1\r\nHost: {addr}\r\nOrigin: {origin}\r\n\
         Access-Control-Request-Method: POST\r\n\
         Access-Control-Request-Headers: content-type,grpc-timeout,x-grpc-web,x-user-agent\r\n\
         Connection: close\r\n\r\n"
    );
    socket.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    socket.read_to_end(&mut response).await.unwrap();
    head(&response)
}

/// A gRPC-Web Perft call from `origin` (`depth` 99 is over the limit): the
/// status, the headers and the whole answer as text.
async fn perft_from(
    addr: SocketAddr,
    origin: &str,
    depth: u32,
) -> (u16, HashMap<String, String>, String) {
    let socket = TcpStream::connect(addr).await.expect("connect");
    let message = arbiter::proto::PerftRequest { depth, ..Default::default() }.encode_to_vec();
    let headers = [("Origin", origin)];
    let response =
        test_server::grpc_web_call(socket, &addr.to_string(), "Perft", &headers, &message).await;
    let (status, headers) = head(&response);
    (status, headers, String::from_utf8_lossy(&response).into_owned())
}

#[tokio::test]
async fn a_preflight_from_a_listed_origin_is_granted() {
    let server = TestServer::start(&["--grpc-web-cors-origins", LISTED]).await;
    for origin in ["https://play.example", "http://127.0.0.1:8080"] {
        let (status, headers) = preflight(server.addr, origin).await;
        assert!((200..300).contains(&status), "{origin}: {status} {headers:?}");
        assert_eq!(headers.get("access-control-allow-origin").map(String::as_str), Some(origin));
        assert_eq!(list(&headers, "access-control-allow-methods"), ["post"]);
        let allowed = list(&headers, "access-control-allow-headers");
        for header in ["content-type", "x-grpc-web", "x-user-agent", "grpc-timeout"] {
            assert!(allowed.iter().any(|h| h == header), "{header} not in {allowed:?}");
        }
        assert_eq!(headers.get("access-control-max-age").map(String::as_str), Some("86400"));
        // Caches must not hand one origin's answer to another.
        assert!(list(&headers, "vary").iter().any(|h| h == "origin"), "{headers:?}");
        assert!(!headers.contains_key("access-control-allow-credentials"), "{headers:?}");
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_preflight_from_another_origin_gets_no_grant() {
    let server = TestServer::start(&["--grpc-web-cors-origins", LISTED]).await;
    for origin in [
        "https://evil.example",
        // Near misses: another scheme, port, a suffix or a subdomain.
        "http://play.example",
        "https://play.example:8443",
        "https://play.example.evil.example",
        "https://sub.play.example",
        "http://127.0.0.1:8081",
        "null",
    ] {
        let (_, headers) = preflight(server.addr, origin).await;
        assert!(!headers.contains_key("access-control-allow-origin"), "{origin}: {headers:?}");
        // The call itself still answers (a non-browser client has no CORS),
        // but without a grant a browser hides the answer from the page.
        let (status, headers, text) = perft_from(server.addr, origin, 1).await;
        assert_eq!(status, 200);
        assert!(text.contains("grpc-status:0"), "{text}");
        assert!(!headers.contains_key("access-control-allow-origin"), "{origin}: {headers:?}");
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn answers_to_a_listed_origin_expose_the_grpc_status_headers() {
    let server = TestServer::start(&["--grpc-web-cors-origins", LISTED]).await;
    // An answer with a body and an error answer (trailers-only: the status
    // and its details travel in the headers the page must read).
    for depth in [1, 99] {
        let (status, headers, _) = perft_from(server.addr, "https://play.example", depth).await;
        assert_eq!(status, 200);
        assert_eq!(
            headers.get("access-control-allow-origin").map(String::as_str),
            Some("https://play.example")
        );
        let exposed = list(&headers, "access-control-expose-headers");
        for header in ["grpc-status", "grpc-message", "grpc-status-details-bin"] {
            assert!(exposed.iter().any(|h| h == header), "{header} not in {exposed:?}");
        }
        if depth == 99 {
            assert_eq!(headers.get("grpc-status").map(String::as_str), Some("3"), "{headers:?}");
        }
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_star_grants_any_origin() {
    let server = TestServer::start(&["--grpc-web-cors-origins", "*"]).await;
    let (_, headers) = preflight(server.addr, "https://anyone.example").await;
    assert_eq!(headers.get("access-control-allow-origin").map(String::as_str), Some("*"));
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn by_default_no_origin_is_granted() {
    let server = TestServer::start(&[]).await;
    let (_, headers) = preflight(server.addr, "https://play.example").await;
    let granted: Vec<_> =
        headers.keys().filter(|name| name.starts_with("access-control-")).collect();
    assert!(granted.is_empty(), "{headers:?}");
    let (status, headers, text) = perft_from(server.addr, "https://play.example", 1).await;
    assert_eq!(status, 200);
    assert!(text.contains("grpc-status:0"), "{text}");
    assert!(!headers.contains_key("access-control-allow-origin"), "{headers:?}");
    server.shutdown().await.unwrap();
}

#[test]
fn a_malformed_origin_list_stops_the_server_naming_the_entry() {
    let serve = |flag: Option<&str>, env: Option<&str>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_arbiter"));
        command.args(["serve", "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0"]);
        command.env_remove("ARBITER_GRPC_WEB_CORS_ORIGINS");
        if let Some(list) = flag {
            command.args(["--grpc-web-cors-origins", list]);
        }
        if let Some(list) = env {
            command.env("ARBITER_GRPC_WEB_CORS_ORIGINS", list);
        }
        command.output().expect("arbiter runs")
    };
    for (flag, env, entry) in [
        (Some("https://play.example,https://play.example/"), None, "https://play.example/"),
        (None, Some("https://play.example, ftp://files.example"), "ftp://files.example"),
        (None, Some("play.example"), "play.example"),
    ] {
        let out = serve(flag, env);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        let named = format!("--grpc-web-cors-origins: {entry:?} is not a web origin");
        assert!(stderr.contains(&named), "{stderr}");
    }
}

//! TLS and mutual TLS on the gRPC port, with a CA and certificates made at
//! run time: TLS clients get answers, plaintext and (under mTLS) clients
//! without a certificate from the configured CA are refused, health follows
//! the same rules, and the start-up checks name the file at fault.

use std::process::Command;
use std::sync::Arc;

use arbiter::config::ConfigError;
use arbiter::proto;
use arbiter::proto::rules_service_client::RulesServiceClient;
use arbiter::tls::TlsError;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};
use tokio_rustls::rustls::{ClientConfig, RootCertStore};
use tonic::transport::Channel;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

use crate::common::pki::{Ca, Pem, scratch_dir, tls_channel, write};
use crate::common::server::{self as test_server, TestServer};

/// A server on TLS with a fresh CA's certificate; with `mutual`, it also
/// asks clients for a certificate from that CA.
async fn tls_server(test: &str, ca: &Ca, mutual: bool) -> TestServer {
    let dir = scratch_dir(test);
    let server = ca.server();
    let cert = write(&dir, "server.pem", &server.cert);
    let key = write(&dir, "server.key", &server.key);
    let client_ca = write(&dir, "client-ca.pem", &ca.cert_pem);
    let mut flags = vec!["--tls-cert", &cert, "--tls-key", &key];
    if mutual {
        flags.extend(["--tls-client-ca", &client_ca]);
    }
    TestServer::start(&flags).await
}

/// Health of the whole server over `channel`, or the error text when the
/// connection or the call fails.
async fn health(channel: Result<Channel, tonic::transport::Error>) -> Result<i32, String> {
    let channel = channel.map_err(|err| format!("connect: {err:?}"))?;
    let reply = HealthClient::new(channel)
        .check(HealthCheckRequest { service: String::new() })
        .await
        .map_err(|status| format!("call: {status:?}"))?;
    Ok(reply.into_inner().status)
}

async fn validate_e4(channel: Channel) -> Result<String, tonic::Status> {
    let request = proto::ValidateGameRequest { moves: vec!["e2e4".into()], ..Default::default() };
    let reply = RulesServiceClient::new(channel).validate_game(request).await?.into_inner();
    Ok(reply.plies[0].san.clone())
}

#[tokio::test]
async fn tls_clients_are_answered_and_plaintext_is_refused() {
    let ca = Ca::new("arbiter test CA");
    let server = tls_server("tls", &ca, false).await;
    let channel = tls_channel(server.addr, &ca.cert_pem, None).await.expect("TLS connect");
    assert_eq!(validate_e4(channel.clone()).await.unwrap(), "e4");
    assert_eq!(health(Ok(channel)).await, Ok(ServingStatus::Serving as i32));
    // A plaintext client does not get through.
    let plaintext =
        Channel::from_shared(format!("http://{}", server.addr)).unwrap().connect().await;
    let refused = health(plaintext).await;
    assert!(refused.is_err(), "plaintext client answered: {refused:?}");
    // Nor does a TLS client that does not trust the server's CA.
    let stranger = Ca::new("another CA");
    let refused = health(tls_channel(server.addr, &stranger.cert_pem, None).await).await;
    assert!(refused.is_err(), "client with the wrong trust anchor answered: {refused:?}");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn mutual_tls_refuses_clients_without_a_certificate_from_the_client_ca() {
    let ca = Ca::new("arbiter test CA");
    let server = tls_server("mtls", &ca, true).await;
    let ours = ca.client();
    let channel = tls_channel(server.addr, &ca.cert_pem, Some(&ours)).await.expect("mTLS connect");
    assert_eq!(validate_e4(channel.clone()).await.unwrap(), "e4");
    assert_eq!(health(Ok(channel)).await, Ok(ServingStatus::Serving as i32));

    // Health and the rules service share the port and its rules: a client
    // without a certificate, or with one from another CA, gets neither.
    let theirs = Ca::new("another CA").client();
    for (who, identity) in [("no certificate", None), ("another CA's certificate", Some(&theirs))] {
        let refused = health(tls_channel(server.addr, &ca.cert_pem, identity).await).await;
        assert!(refused.is_err(), "client with {who} answered: {refused:?}");
        // Under TLS 1.3 the client finishes its side of the handshake first,
        // so the refusal arrives with the first call as the server's alert.
        if let Ok(channel) = tls_channel(server.addr, &ca.cert_pem, identity).await {
            let status = validate_e4(channel).await.unwrap_err();
            assert!(format!("{status:?}").contains("fatal alert"), "{who}: {status:?}");
            eprintln!("{who}: {status:?}");
        }
    }
    server.shutdown().await.unwrap();
}

/// One gRPC-Web Perft call over HTTP/1.1 inside TLS, the client offering
/// `alpn` (empty: no ALPN extension at all).
async fn grpc_web_over_tls(
    addr: std::net::SocketAddr,
    ca_pem: &str,
    alpn: &[&[u8]],
) -> std::io::Result<String> {
    use prost::Message;
    let mut roots = RootCertStore::empty();
    roots.add(CertificateDer::from_pem_slice(ca_pem.as_bytes()).unwrap()).unwrap();
    let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
    let mut config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let tcp = tokio::net::TcpStream::connect(addr).await?;
    let tls = connector.connect(ServerName::try_from("localhost").unwrap(), tcp).await?;
    let message = proto::PerftRequest { depth: 2, ..Default::default() }.encode_to_vec();
    let response = test_server::grpc_web_call(tls, "localhost", "Perft", &[], &message).await;
    Ok(String::from_utf8_lossy(&response).into_owned())
}

/// gRPC-Web over HTTP/2 inside TLS is what browsers negotiate and works as
/// any gRPC call does. Over HTTP/1.1 inside TLS it works for a client that
/// sends no ALPN; tonic's TLS offers only `h2` in ALPN, so a client that
/// insists on `http/1.1` is refused in the handshake.
#[tokio::test]
async fn grpc_web_over_http1_inside_tls() {
    let ca = Ca::new("arbiter test CA");
    let server = tls_server("grpc-web", &ca, false).await;
    let text = grpc_web_over_tls(server.addr, &ca.cert_pem, &[]).await.expect("no ALPN");
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(text.contains("grpc-status:0"), "{text}");
    let refused = grpc_web_over_tls(server.addr, &ca.cert_pem, &[b"http/1.1"]).await;
    assert!(refused.is_err(), "ALPN http/1.1 was accepted: {refused:?}");
    server.shutdown().await.unwrap();
}

#[test]
fn tls_flags_come_in_pairs() {
    let dir = scratch_dir("pairs");
    let file = write(&dir, "any.pem", "");
    let cases: [(&[&str], &str, &str); 3] = [
        (&["--tls-cert", &file], "--tls-cert", "--tls-key"),
        (&["--tls-key", &file], "--tls-key", "--tls-cert"),
        (&["--tls-client-ca", &file], "--tls-client-ca", "--tls-cert and --tls-key"),
    ];
    for (flags, given, missing) in cases {
        match test_server::config(flags).validate() {
            Err(ConfigError::Incomplete { given: g, missing: m }) => {
                assert_eq!((g, m), (given, missing))
            }
            other => panic!("{flags:?}: {other:?}"),
        }
    }
}

#[test]
fn bad_tls_files_are_errors_naming_the_file() {
    let dir = scratch_dir("bad-files");
    let ca = Ca::new("arbiter test CA");
    let Pem { cert, key } = ca.server();
    let cert = write(&dir, "server.pem", &cert);
    let key = write(&dir, "server.key", &key);
    let other_key = write(&dir, "other.key", &ca.client().key);
    let garbage = write(&dir, "garbage.pem", "not PEM at all\n");
    let broken = write(&dir, "broken.pem", "-----BEGIN CERTIFICATE-----\n@@@@\n");
    let fake_ca = write(
        &dir,
        "fake-ca.pem",
        "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
    );
    let missing = dir.join("missing.pem").to_str().unwrap().to_owned();
    let cases: [(&[&str], &str); 7] = [
        (&["--tls-cert", &missing, "--tls-key", &key], &missing),
        (&["--tls-cert", &garbage, "--tls-key", &key], &garbage),
        (&["--tls-cert", &broken, "--tls-key", &key], &broken),
        (&["--tls-cert", &cert, "--tls-key", &cert], &cert),
        (&["--tls-cert", &cert, "--tls-key", &other_key], &other_key),
        (&["--tls-cert", &cert, "--tls-key", &key, "--tls-client-ca", &key], &key),
        (&["--tls-cert", &cert, "--tls-key", &key, "--tls-client-ca", &fake_ca], &fake_ca),
    ];
    for (flags, culprit) in cases {
        let err = test_server::config(flags).validate().expect_err(culprit);
        assert!(matches!(err, ConfigError::Tls(_)), "{flags:?}: {err:?}");
        let text = err.to_string();
        assert!(text.contains(culprit), "{flags:?}: {text}");
        eprintln!("{text}");
    }
    // The mismatched key is reported as such, naming both files.
    let err = test_server::config(&["--tls-cert", &cert, "--tls-key", &other_key])
        .validate()
        .unwrap_err();
    assert!(matches!(err, ConfigError::Tls(TlsError::Identity { .. })), "{err:?}");
    assert!(err.to_string().contains(&cert), "{err}");
    // A good pair is accepted.
    test_server::config(&["--tls-cert", &cert, "--tls-key", &key]).validate().unwrap();
}

/// The binary reports a bad TLS setting at start-up and exits 2; the
/// environment twins count like the flags.
#[test]
fn serve_refuses_bad_tls_settings_at_start_up() {
    let dir = scratch_dir("binary");
    let missing = dir.join("missing.pem").to_str().unwrap().to_owned();
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let out = Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(args)
            .envs(env.iter().copied())
            .output()
            .expect("arbiter runs");
        (out.status.code(), String::from_utf8(out.stderr).unwrap())
    };
    let (code, stderr) = run(&[], &[("ARBITER_TLS_CERT", &missing)]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--tls-cert needs --tls-key"), "{stderr}");
    let (code, stderr) = run(&["--tls-key", &missing], &[("ARBITER_TLS_CERT", &missing)]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains(&format!("cannot read {missing}")), "{stderr}");
}

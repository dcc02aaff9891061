//! TLS for the gRPC port: reads the certificate, key and client CA files the
//! configuration names and checks them at start-up, so that a bad file is an
//! error naming that file rather than failed handshakes later.

use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rustls_pki_types::pem::{self, PemObject};
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tonic::transport::{Certificate, Identity, Server, ServerTlsConfig};

/// How long a client has to finish the TLS handshake. Without a bound, a
/// client that connects and never says hello would hold a handshake task
/// (and its socket) for ever.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// A TLS file that cannot serve, named.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// The file cannot be read.
    #[error("cannot read {}: {source}", path.display())]
    Read { path: PathBuf, source: io::Error },
    /// The file holds no PEM item of the kind needed, or broken PEM.
    #[error("{} holds no {what}: {reason}", path.display())]
    NotPem { path: PathBuf, what: &'static str, reason: String },
    /// rustls refused the certificate chain and key (e.g. they do not match).
    #[error("{} with key {}: not a usable certificate and key: {reason}", cert.display(), key.display())]
    Identity { cert: PathBuf, key: PathBuf, reason: String },
    /// rustls refused the client CA certificates.
    #[error("{}: not a usable client CA: {reason}", path.display())]
    ClientCa { path: PathBuf, reason: String },
}

/// Reads a PEM file and checks that it holds at least one item of type `T`.
fn read_pem<T: PemObject>(path: &Path, what: &'static str) -> Result<Vec<u8>, TlsError> {
    let bytes =
        std::fs::read(path).map_err(|source| TlsError::Read { path: path.to_owned(), source })?;
    let not_pem = |reason: String| TlsError::NotPem { path: path.to_owned(), what, reason };
    match T::pem_slice_iter(&bytes).next() {
        Some(Ok(_)) => Ok(bytes),
        Some(Err(err)) => Err(not_pem(pem_reason(&err))),
        None => Err(not_pem(pem_reason(&pem::Error::NoItemsFound))),
    }
}

/// A PEM error in words: the crate's own `Display` prints the marker lines
/// it quotes as byte arrays.
fn pem_reason(err: &pem::Error) -> String {
    match err {
        pem::Error::MissingSectionEnd { end_marker } => {
            format!("no -----END {}----- line", String::from_utf8_lossy(end_marker))
        }
        pem::Error::IllegalSectionStart { line } => {
            format!("bad BEGIN line {:?}", String::from_utf8_lossy(line))
        }
        pem::Error::NoItemsFound => "no such PEM section found".to_owned(),
        other => other.to_string(),
    }
}

/// The server TLS settings from a certificate chain and its key, and, for
/// mutual TLS, the CA certificates that client certificates must chain to.
///
/// # Errors
///
/// A [`TlsError`] naming the file at fault.
pub fn server_config(
    cert: &Path,
    key: &Path,
    client_ca: Option<&Path>,
) -> Result<ServerTlsConfig, TlsError> {
    let identity = Identity::from_pem(
        read_pem::<CertificateDer>(cert, "PEM certificate")?,
        read_pem::<PrivateKeyDer>(key, "PEM private key")?,
    );
    let config = ServerTlsConfig::new().identity(identity).timeout(HANDSHAKE_TIMEOUT);
    // tonic builds the rustls configuration (matching key and certificate,
    // parsing every certificate) when it is handed over: do that now, once
    // per file, so that its error can name the file.
    Server::builder().tls_config(config.clone()).map_err(|err| TlsError::Identity {
        cert: cert.to_owned(),
        key: key.to_owned(),
        reason: source_chain(&err),
    })?;
    let Some(client_ca) = client_ca else { return Ok(config) };
    let roots = read_pem::<CertificateDer>(client_ca, "PEM CA certificate")?;
    let config = config.client_ca_root(Certificate::from_pem(roots));
    Server::builder().tls_config(config.clone()).map_err(|err| TlsError::ClientCa {
        path: client_ca.to_owned(),
        reason: source_chain(&err),
    })?;
    Ok(config)
}

/// An error with its causes, as tonic's own `Display` says only "transport error".
fn source_chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

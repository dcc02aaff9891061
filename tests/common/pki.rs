//! A throw-away PKI for the TLS tests: a CA made at run time, server and
//! client certificates it signs, written as PEM files under the test target
//! directory, and tonic channels that trust the CA.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
};
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Identity};

/// A certificate and its key, in PEM.
pub struct Pem {
    pub cert: String,
    pub key: String,
}

/// A certificate authority that signs leaf certificates.
pub struct Ca {
    pub cert_pem: String,
    issuer: Issuer<'static, KeyPair>,
}

impl Ca {
    pub fn new(name: &str) -> Ca {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        let key = KeyPair::generate().unwrap();
        let cert_pem = params.self_signed(&key).unwrap().pem();
        Ca { cert_pem, issuer: Issuer::new(params, key) }
    }

    fn leaf(&self, names: &[&str], usage: ExtendedKeyUsagePurpose) -> Pem {
        let names: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
        let mut params = CertificateParams::new(names).unwrap();
        params.distinguished_name.push(DnType::CommonName, "arbiter test");
        params.extended_key_usages = vec![usage];
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.issuer).unwrap().pem();
        Pem { cert, key: key.serialize_pem() }
    }

    /// A server certificate for `localhost` and 127.0.0.1.
    pub fn server(&self) -> Pem {
        self.leaf(&["localhost", "127.0.0.1"], ExtendedKeyUsagePurpose::ServerAuth)
    }

    /// A client certificate.
    pub fn client(&self) -> Pem {
        self.leaf(&["client.test"], ExtendedKeyUsagePurpose::ClientAuth)
    }
}

/// A fresh directory for one test's files.
pub fn scratch_dir(test: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("tls-{test}-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `text` to `dir/name` and returns the path as a string, for flags.
pub fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_owned()
}

/// A TLS channel to `addr` that trusts `ca_pem` and, for mutual TLS,
/// presents `identity`.
///
/// # Errors
///
/// The transport error if the connection or the handshake fails.
pub async fn tls_channel(
    addr: SocketAddr,
    ca_pem: &str,
    identity: Option<&Pem>,
) -> Result<Channel, tonic::transport::Error> {
    let mut tls = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(ca_pem))
        .domain_name("localhost");
    if let Some(pem) = identity {
        tls = tls.identity(Identity::from_pem(&pem.cert, &pem.key));
    }
    Channel::from_shared(format!("https://{addr}")).unwrap().tls_config(tls)?.connect().await
}

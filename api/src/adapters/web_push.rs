//! Web Push (issue 18): the message encryption of RFC 8291 (`aes128gcm`, RFC 8188) and the
//! VAPID signature of RFC 8292. The push service is the browser vendor's; the server only
//! encrypts each notification's JSON for one subscription and signs the request.

use aes_gcm::aead::{Aead, KeyInit};
use p256::elliptic_curve::sec1::ToEncodedPoint;
use p256::pkcs8::EncodePrivateKey;
use p256::{PublicKey, SecretKey};
use sha2::Sha256;

/// Record size announced in the header (one record holds any notification).
const RECORD_SIZE: u32 = 4096;

/// base64url without padding (RFC 4648 §5), as Web Push writes keys.
pub fn b64url(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// Decodes base64url, padded or not; the standard alphabet is accepted too (some browsers'
/// subscriptions are written with it), and so are stray low bits in the last character.
pub fn b64url_decode(raw: &str) -> Option<Vec<u8>> {
    use base64::Engine;
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::URL_SAFE,
        GeneralPurposeConfig::new()
            .with_decode_padding_mode(DecodePaddingMode::Indifferent)
            .with_decode_allow_trailing_bits(true),
    );
    LENIENT.decode(raw.replace('+', "-").replace('/', "_")).ok()
}

/// A fresh P-256 secret key from the system's randomness.
fn random_secret() -> SecretKey {
    loop {
        let mut bytes = [0u8; 32];
        infra::random::fill_random(&mut bytes);
        if let Ok(key) = SecretKey::from_slice(&bytes) {
            return key;
        }
    }
}

/// The server's VAPID key pair (RFC 8292).
pub struct Vapid {
    der: Vec<u8>,
    /// base64url uncompressed public point: `GET /v1/push/vapid-public-key`, and `k=`.
    pub public: String,
    /// The JWT's `sub`: a contact for the push service.
    subject: String,
}

impl std::fmt::Debug for Vapid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vapid")
            .field("public", &self.public)
            .finish()
    }
}

impl Vapid {
    /// From a raw 32-byte private scalar (`HOMESTRETCH_VAPID_PRIVATE_KEY`, base64url), or a new
    /// one when `raw` is empty.
    pub fn new(raw: &[u8], subject: &str) -> Result<Vapid, String> {
        let secret = if raw.is_empty() {
            random_secret()
        } else {
            SecretKey::from_slice(raw)
                .map_err(|_| "the VAPID private key is not a P-256 scalar (32 bytes)")?
        };
        let der = secret
            .to_pkcs8_der()
            .map_err(|e| format!("VAPID key: {e}"))?
            .as_bytes()
            .to_vec();
        let public = b64url(secret.public_key().to_encoded_point(false).as_bytes());
        Ok(Vapid {
            der,
            public,
            subject: subject.to_string(),
        })
    }

    /// A new private key, base64url (what `HOMESTRETCH_VAPID_PRIVATE_KEY` holds).
    pub fn generate() -> String {
        b64url(&random_secret().to_bytes())
    }

    /// `Authorization: vapid t=<JWT>, k=<public key>` for a request to `endpoint`.
    pub fn authorization(&self, endpoint: &url::Url) -> Result<String, String> {
        let audience = endpoint.origin().ascii_serialization();
        let exp = time::OffsetDateTime::now_utc().unix_timestamp() + 12 * 3600;
        let claims = serde_json::json!({"aud": audience, "exp": exp, "sub": self.subject});
        let header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
        let key = jsonwebtoken::EncodingKey::from_ec_der(&self.der);
        let token = jsonwebtoken::encode(&header, &claims, &key).map_err(|e| e.to_string())?;
        Ok(format!("vapid t={token}, k={}", self.public))
    }
}

/// Encrypts `plaintext` for the subscription whose keys are `p256dh` and `auth` (base64url):
/// the `aes128gcm` body of RFC 8291 §4, one record, with a fresh sender key and salt.
pub fn encrypt(p256dh: &str, auth: &str, plaintext: &[u8]) -> Result<Vec<u8>, String> {
    let ua_public_bytes = b64url_decode(p256dh).ok_or("p256dh is not base64url")?;
    let auth_secret = b64url_decode(auth).ok_or("auth is not base64url")?;
    let ua_public =
        PublicKey::from_sec1_bytes(&ua_public_bytes).map_err(|_| "p256dh is not a P-256 point")?;
    let as_secret = random_secret();
    let as_public = as_secret.public_key().to_encoded_point(false);
    let shared = p256::ecdh::diffie_hellman(as_secret.to_nonzero_scalar(), ua_public.as_affine());
    // RFC 8291 §3.4: IKM from the ECDH secret, keyed by the auth secret.
    let mut key_info = b"WebPush: info\0".to_vec();
    key_info.extend_from_slice(&ua_public_bytes);
    key_info.extend_from_slice(as_public.as_bytes());
    let mut ikm = [0u8; 32];
    hkdf::Hkdf::<Sha256>::new(Some(&auth_secret), shared.raw_secret_bytes())
        .expand(&key_info, &mut ikm)
        .map_err(|_| "HKDF")?;
    // RFC 8188 §2.2: content key and nonce from a fresh salt.
    let mut salt = [0u8; 16];
    infra::random::fill_random(&mut salt);
    let prk = hkdf::Hkdf::<Sha256>::new(Some(&salt), &ikm);
    let mut cek = [0u8; 16];
    let mut nonce = [0u8; 12];
    prk.expand(b"Content-Encoding: aes128gcm\0", &mut cek)
        .map_err(|_| "HKDF")?;
    prk.expand(b"Content-Encoding: nonce\0", &mut nonce)
        .map_err(|_| "HKDF")?;
    // One record: the plaintext, then the last-record delimiter 0x02 (no padding).
    let mut record = plaintext.to_vec();
    record.push(2);
    if record.len() + 16 > RECORD_SIZE as usize {
        return Err("the notification is too large for one record".into());
    }
    let cipher = aes_gcm::Aes128Gcm::new_from_slice(&cek).map_err(|_| "AES key")?;
    let sealed = cipher
        .encrypt(&nonce.into(), record.as_slice())
        .map_err(|_| "AES-GCM")?;
    let mut body = Vec::with_capacity(16 + 4 + 1 + 65 + sealed.len());
    body.extend_from_slice(&salt);
    body.extend_from_slice(&RECORD_SIZE.to_be_bytes());
    body.push(as_public.as_bytes().len() as u8);
    body.extend_from_slice(as_public.as_bytes());
    body.extend_from_slice(&sealed);
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_round_trips() {
        for n in 0..40u8 {
            let bytes: Vec<u8> = (0..n).map(|i| i.wrapping_mul(37)).collect();
            assert_eq!(b64url_decode(&b64url(&bytes)).unwrap(), bytes);
        }
        assert_eq!(b64url(b"\xfb\xff"), "-_8");
        // What subscriptions send besides plain base64url: padding, the standard alphabet.
        assert_eq!(b64url_decode("-_8=").unwrap(), b"\xfb\xff");
        assert_eq!(b64url_decode("+/8").unwrap(), b"\xfb\xff");
        assert_eq!(b64url_decode("a*b"), None);
    }

    /// RFC 8291 §5's example, decrypted with the receiver's keys: the body is the sender's
    /// salt, record size, key and the sealed record, and it opens to the plaintext.
    #[test]
    fn an_encrypted_message_opens_with_the_receivers_keys() {
        let ua = random_secret();
        let ua_public = b64url(ua.public_key().to_encoded_point(false).as_bytes());
        let auth = b64url(&[7u8; 16]);
        let body = encrypt(&ua_public, &auth, b"{\"type\":\"your_turn\"}").unwrap();
        let (salt, rest) = body.split_at(16);
        assert_eq!(&rest[..4], &4096u32.to_be_bytes());
        assert_eq!(rest[4], 65);
        let as_public = PublicKey::from_sec1_bytes(&rest[5..70]).unwrap();
        let sealed = &rest[70..];
        let shared = p256::ecdh::diffie_hellman(ua.to_nonzero_scalar(), as_public.as_affine());
        let mut info = b"WebPush: info\0".to_vec();
        info.extend_from_slice(&b64url_decode(&ua_public).unwrap());
        info.extend_from_slice(&rest[5..70]);
        let mut ikm = [0u8; 32];
        hkdf::Hkdf::<Sha256>::new(Some(&[7u8; 16]), shared.raw_secret_bytes())
            .expand(&info, &mut ikm)
            .unwrap();
        let prk = hkdf::Hkdf::<Sha256>::new(Some(salt), &ikm);
        let (mut cek, mut nonce) = ([0u8; 16], [0u8; 12]);
        prk.expand(b"Content-Encoding: aes128gcm\0", &mut cek)
            .unwrap();
        prk.expand(b"Content-Encoding: nonce\0", &mut nonce)
            .unwrap();
        let plain = aes_gcm::Aes128Gcm::new_from_slice(&cek)
            .unwrap()
            .decrypt(&nonce.into(), sealed)
            .unwrap();
        assert_eq!(plain, b"{\"type\":\"your_turn\"}\x02");
    }
}

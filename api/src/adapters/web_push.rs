//! Web Push (issue 18): the message encryption of RFC 8291 (`aes128gcm`, RFC 8188), by the
//! `web-push-native` crate, and the VAPID signature of RFC 8292 (ours: an ES256 JWT through
//! `jsonwebtoken`, which the server already signs with). The push service is the browser
//! vendor's; the server only encrypts each notification's JSON for one subscription and signs
//! the request.

use p256::elliptic_curve::sec1::ToEncodedPoint;
use p256::pkcs8::EncodePrivateKey;
use p256::{PublicKey, SecretKey};

/// The largest record we send: the notification, its delimiter and the 16-byte tag (push
/// services need not take more than 4096 octets; the record size the body announced before
/// the crate, which announces the record's own length).
const RECORD_SIZE: usize = 4096;

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
/// the `aes128gcm` body of RFC 8291 §4, one record, with a fresh sender key and salt (the
/// crate draws both from the OS, through `rand_core`'s `OsRng`).
pub fn encrypt(p256dh: &str, auth: &str, plaintext: &[u8]) -> Result<Vec<u8>, String> {
    let ua_public_bytes = b64url_decode(p256dh).ok_or("p256dh is not base64url")?;
    let auth_secret = b64url_decode(auth).ok_or("auth is not base64url")?;
    let ua_public =
        PublicKey::from_sec1_bytes(&ua_public_bytes).map_err(|_| "p256dh is not a P-256 point")?;
    // RFC 8291 §3.2: the authentication secret is 16 octets (checked at subscription too).
    let auth: [u8; 16] = auth_secret.try_into().map_err(|_| "auth is not 16 bytes")?;
    // The record: the plaintext, the last-record delimiter and the tag.
    if plaintext.len() + 1 + 16 > RECORD_SIZE {
        return Err("the notification is too large for one record".into());
    }
    web_push_native::encrypt(plaintext.to_vec(), &ua_public, &auth.into())
        .map_err(|e| format!("{e:?}"))
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
        use aes_gcm::aead::{Aead, KeyInit};
        use sha2::Sha256;
        let ua = random_secret();
        let ua_public = b64url(ua.public_key().to_encoded_point(false).as_bytes());
        let auth = b64url(&[7u8; 16]);
        let body = encrypt(&ua_public, &auth, b"{\"type\":\"your_turn\"}").unwrap();
        let (salt, rest) = body.split_at(16);
        // One record exactly: web-push-native announces the plaintext + delimiter + tag.
        assert_eq!(&rest[..4], &(20u32 + 17).to_be_bytes());
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

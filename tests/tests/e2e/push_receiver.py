"""The Web Push stand-in's crypto (tests/e2e/notify.rs), done with maintained implementations:
Mozilla's http_ece (RFC 8188/8291 aes128gcm) and pyca/cryptography (the VAPID ES256 JWT).

  keys  -> {"p256dh", "auth", "private_pem"}: a browser's subscription keys
  open  <- {"private_pem", "auth", "public_key", "messages": [{"endpoint", "authorization",
            "content_encoding", "body"}]} (body base64url)
        -> [payload JSON, ...], after checking each VAPID header (signature by `public_key`,
           `aud` = the endpoint's origin, `exp` within 24 h, `sub` a contact)
"""
import base64, json, sys, time
from urllib.parse import urlsplit

import http_ece
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, utils


def b64d(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def b64e(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def keys():
    private = ec.generate_private_key(ec.SECP256R1())
    public = private.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    import os
    print(json.dumps({
        "p256dh": b64e(public),
        "auth": b64e(os.urandom(16)),
        "private_pem": private.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption()).decode(),
    }))


def check_vapid(header, endpoint, server_key):
    assert header.startswith("vapid "), header
    params = dict(p.strip().split("=", 1) for p in header[len("vapid "):].split(","))
    assert params["k"] == server_key, "k is not the server's VAPID key"
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64d(params["k"]))
    head, claims, signature = params["t"].split(".")
    assert json.loads(b64d(head))["alg"] == "ES256"
    raw = b64d(signature)
    assert len(raw) == 64
    der = utils.encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public.verify(der, f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
    claims = json.loads(b64d(claims))
    parts = urlsplit(endpoint)
    assert claims["aud"] == f"{parts.scheme}://{parts.netloc}", claims
    assert time.time() < claims["exp"] <= time.time() + 24 * 3600, claims
    assert claims["sub"].startswith(("mailto:", "https:")), claims


def open_messages():
    request = json.load(sys.stdin)
    private = serialization.load_pem_private_key(request["private_pem"].encode(), None)
    out = []
    for m in request["messages"]:
        check_vapid(m["authorization"], m["endpoint"], request["public_key"])
        assert m["content_encoding"] == "aes128gcm", m["content_encoding"]
        plain = http_ece.decrypt(b64d(m["body"]), private_key=private,
                                 auth_secret=b64d(request["auth"]), version="aes128gcm")
        out.append(json.loads(plain))
    print(json.dumps(out))


{"keys": keys, "open": open_messages}[sys.argv[1]]()

//! The randomness handed to `decide`: draws, sealed commitments, the command's ChaCha20
//! stream, scripted and seeded RNGs.

/// The randomness `decide` and `setup` may draw from. Every draw must end up in an event, so
/// that replay (`evolve`) never needs an RNG.
pub trait Rng {
    /// A uniform integer in `0..n` (`n ≥ 1`), without modulo bias.
    fn below(&mut self, n: u32) -> u32;
    /// Fills `out` with random bytes (salts for sealed commitments).
    fn fill_bytes(&mut self, out: &mut [u8]);
}

/// Convenience draws built on [`Rng::below`], so scripted RNGs control them too.
pub trait RngExt: Rng {
    /// A die with `sides` faces: `1..=sides`.
    fn die(&mut self, sides: u32) -> u32 {
        self.below(sides) + 1
    }
    /// Uniform index into a non-empty collection of `len` items.
    fn index(&mut self, len: usize) -> usize {
        self.below(u32::try_from(len).expect("collection too large")) as usize
    }
    /// Fisher–Yates shuffle.
    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.index(i + 1);
            items.swap(i, j);
        }
    }
    /// One die of `sides` faces, `1..=sides`, as the `u8` events record.
    fn roll(&mut self, sides: u8) -> u8 {
        self.die(u32::from(sides)) as u8
    }
    /// A fresh 16-byte salt as lowercase hex, for sealed commitments.
    fn salt(&mut self) -> String {
        let mut bytes = [0u8; 16];
        self.fill_bytes(&mut bytes);
        hex::encode(bytes)
    }
    /// Seals `value` for a secret choice: a fresh salt and the commitment published now.
    fn seal(&mut self, value: i64) -> Seal {
        let salt = self.salt();
        let commitment = sealed_commitment(&salt, value);
        Seal { salt, commitment }
    }
}

/// A sealed value: the commitment is published when the choice is made; the salt is kept and
/// published with the value at the reveal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seal {
    pub salt: String,
    pub commitment: String,
}

impl<R: Rng + ?Sized> RngExt for R {}

/// ChaCha20 stream keyed from the game's server seed and the players' client seeds.
pub struct ChaChaRng(rand_chacha::ChaCha20Rng);

impl ChaChaRng {
    /// The RNG for the command that is decided at `version` (the version before it).
    /// Each command gets its own ChaCha20 stream, so a verifier can re-run any single command.
    pub fn for_command(server_seed: &[u8; 32], client_seeds: &[String], version: u64) -> Self {
        use rand_core::SeedableRng;
        let key = rng_key(server_seed, client_seeds);
        let mut inner = rand_chacha::ChaCha20Rng::from_seed(key);
        inner.set_stream(version);
        ChaChaRng(inner)
    }

    fn next_u32(&mut self) -> u32 {
        use rand_core::Rng as _;
        self.0.next_u32()
    }
}

/// `SHA-256("homestretch/rng/v1" ‖ server_seed ‖ for each client seed: len(u32 BE) ‖ bytes)`.
pub fn rng_key(server_seed: &[u8; 32], client_seeds: &[String]) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    hasher.update(b"homestretch/rng/v1");
    hasher.update(server_seed);
    for seed in client_seeds {
        hasher.update((seed.len() as u32).to_be_bytes());
        hasher.update(seed.as_bytes());
    }
    hasher.finalize().into()
}

/// `SHA-256(seed)` as hex: the public commitment to a game's server seed.
pub fn seed_commitment(server_seed: &[u8; 32]) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(Sha256::digest(server_seed))
}

/// Commitment to a sealed choice: `SHA-256(salt ‖ ":" ‖ value)` as hex. Published when the
/// choice is made; value and salt are published at the reveal, so anyone can check them.
pub fn sealed_commitment(salt: &str, value: i64) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(Sha256::digest(format!("{salt}:{value}").as_bytes()))
}

impl Rng for ChaChaRng {
    fn below(&mut self, n: u32) -> u32 {
        assert!(n > 0, "below(0)");
        // Rejection sampling: discard the top partial range so every residue is equally likely.
        let zone = u32::MAX - (u32::MAX % n);
        loop {
            let x = self.next_u32();
            if x < zone {
                return x % n;
            }
        }
    }
    fn fill_bytes(&mut self, out: &mut [u8]) {
        use rand_core::Rng as _;
        self.0.fill_bytes(out);
    }
}

/// A scripted RNG for tests: `below` answers the queued values in order (each must be `< n`),
/// then falls back to a seeded ChaCha stream.
pub struct ScriptedRng {
    queue: std::collections::VecDeque<u32>,
    fallback: ChaChaRng,
}

impl ScriptedRng {
    pub fn new(values: impl IntoIterator<Item = u32>) -> Self {
        ScriptedRng {
            queue: values.into_iter().collect(),
            fallback: ChaChaRng::for_command(&[7; 32], &[], 0),
        }
    }
    /// Script die faces (1-based): `dice(&[3, 6])` makes the next two `die()` calls 3 then 6.
    pub fn dice(faces: &[u32]) -> Self {
        Self::new(faces.iter().map(|f| f - 1))
    }
    pub fn push(&mut self, value: u32) {
        self.queue.push_back(value);
    }
    pub fn remaining(&self) -> usize {
        self.queue.len()
    }
}

impl Rng for ScriptedRng {
    fn below(&mut self, n: u32) -> u32 {
        match self.queue.pop_front() {
            Some(v) => {
                assert!(v < n, "scripted value {v} out of range 0..{n}");
                v
            }
            None => self.fallback.below(n),
        }
    }
    fn fill_bytes(&mut self, out: &mut [u8]) {
        self.fallback.fill_bytes(out)
    }
}

/// A seeded RNG for simulations and property tests.
pub fn seeded(seed: u64) -> ChaChaRng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    ChaChaRng::for_command(&key, &[], 0)
}

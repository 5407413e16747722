#!/usr/bin/env bash
# Outbox drill (issue 26, item 3): the claim's time at 1,000,000 queued deliveries (EXPLAIN
# ANALYZE and timed claims), and another user's delivery while one user's backlog of 1,000,000
# is delivered, as a ratio to a baseline measured in the same run. Uses the tests' private
# PostgreSQL cluster (started and stopped by the drill). Usage: tests/drills/outbox.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
RUST_LOG=${RUST_LOG:-error} cargo run ${PROFILE---release} -q -p homestretch-tests --bin outbox-drill

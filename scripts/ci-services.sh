#!/usr/bin/env bash
# GitHub Actions, inside a node:<version>-bookworm job container (Debian 12, as root): the Debian packages
# the test suite uses, and NATS with JetStream plus Redis on 127.0.0.1, as .ci/run sets them up on the
# project's own machines. NATS is not a service container because GitHub's service containers take no
# command line, and JetStream has to be switched on with -js.
set -euo pipefail

apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
  nats-server redis-server chromium fail2ban \
  protobuf-compiler protobuf-compiler-grpc python3-grpcio \
  python3-mockupdb python3-mongomock >/dev/null

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
wait_for() {
  for _ in $(seq 1 100); do port_open "$1" && return 0; sleep 0.1; done
  echo "nothing listens on 127.0.0.1:$1" >&2
  return 1
}

# setsid: the servers outlive this step's shell and serve the following steps.
setsid nats-server -a 127.0.0.1 -p 4222 -js -sd "$(mktemp -d)" >/tmp/nats.log 2>&1 < /dev/null &
redis-server --bind 127.0.0.1 --port 6379 --save '' --appendonly no --daemonize yes >/dev/null
wait_for 4222
wait_for 6379
echo "NATS (JetStream) on 127.0.0.1:4222, Redis on 127.0.0.1:6379"

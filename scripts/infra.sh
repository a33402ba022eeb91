#!/usr/bin/env bash
# Local infrastructure for development and tests, started by the project
# itself (no Docker needed): PostgreSQL, Redis and a single-node KRaft Kafka
# broker resolved from Maven Central.
#
#   scripts/infra.sh up       start what is missing (idempotent)
#   scripts/infra.sh down     stop what this script started
#   scripts/infra.sh status   show what answers
#   scripts/infra.sh kafka-up | kafka-down   the broker alone
#
# An endpoint given by the environment is used as it is and never started:
#   DATABASE_URL  (postgres://…)   REDIS_URL (redis://…)   KAFKA_BROKERS (host:port,…)
# Defaults: Postgres 127.0.0.1:5432, Redis 127.0.0.1:6379, Kafka 127.0.0.1:${KAFKA_PORT:-9092}.
# KAFKA_DIR (default .infra/kafka, .infra/kafka-<port> for another port) holds the broker's data, logs and pid file:
# a second broker (fault tests) gets its own. `up` after a crash (kill -9)
# waits for the old process to be gone and restarts on the same data.
#
# KAFKA_NODES=3 (with e.g. KAFKA_PORT=19092): a three-node KRaft cluster from
# the same jars instead, every node both controller and broker, node i on
# client port KAFKA_PORT+2(i-1) and controller port KAFKA_PORT+2(i-1)+1
# (19092/19093, 19094/19095, 19096/19097), data under .infra/kafka-cluster-<port>/node-<i>.
# Topics created there get replication factor 3 and min.insync.replicas=2 (the
# brokers' defaults; the registry asks for the broker default), so acks=all
# writes (every producer here is idempotent with acks=all) survive one node
# down. KAFKA_BROKERS for the apps: 127.0.0.1:19092,127.0.0.1:19094,127.0.0.1:19096.
# One broker stays the default (npm start, npm test).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
infra="$root/.infra"
kafka_port="${KAFKA_PORT:-9092}"
if [ "$kafka_port" = 9092 ]; then kafka_dir="${KAFKA_DIR:-$infra/kafka}"; else kafka_dir="${KAFKA_DIR:-$infra/kafka-$kafka_port}"; fi
kafka_libs="$infra/kafka/libs"
kafka_version="3.9.1"
controller_port="${KAFKA_CONTROLLER_PORT:-$((kafka_port + 1))}"
ready_timeout="${INFRA_READY_TIMEOUT:-90}"

log() { printf '[infra] %s\n' "$*" >&2; }
die() { printf '[infra] ERROR: %s\n' "$*" >&2; exit 1; }

port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

# wait_for NAME TIMEOUT COMMAND...: polls COMMAND until it succeeds.
wait_for() {
  local name="$1" timeout="$2"; shift 2
  local deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      die "$name did not become ready within ${timeout}s (check: $*)"
    fi
    sleep 0.5
  done
}

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

apt_install() {
  log "installing $* from Debian's packages"
  as_root apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >/dev/null
}

# ---------------------------------------------------------------- PostgreSQL
postgres_up() {
  if [ -n "${DATABASE_URL:-}" ]; then log "postgres: using DATABASE_URL"; return; fi
  if port_open 127.0.0.1 5432; then log "postgres: 127.0.0.1:5432 answers"; return; fi
  if ! command -v pg_ctlcluster >/dev/null; then apt_install postgresql; fi
  local version
  version="$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1)"
  [ -n "$version" ] || die "postgres: no cluster under /etc/postgresql after install"
  # Trust auth on loopback, as on the development machines.
  local hba="/etc/postgresql/$version/main/pg_hba.conf"
  if ! grep -q '^host all all 127.0.0.1/32 trust' "$hba"; then
    as_root sed -i '1i host all all 127.0.0.1/32 trust' "$hba"
  fi
  log "postgres: starting cluster $version/main"
  as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
  touch "$infra/started-postgres"
  wait_for "postgres (127.0.0.1:5432)" "$ready_timeout" port_open 127.0.0.1 5432
}

# --------------------------------------------------------------------- Redis
redis_up() {
  if [ -n "${REDIS_URL:-}" ]; then log "redis: using REDIS_URL"; return; fi
  if port_open 127.0.0.1 6379; then log "redis: 127.0.0.1:6379 answers"; return; fi
  command -v redis-server >/dev/null || apt_install redis-server
  log "redis: starting on 127.0.0.1:6379"
  mkdir -p "$infra/redis"
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
    --dir "$infra/redis" --logfile "$infra/redis/redis.log" --pidfile "$infra/redis/redis.pid"
  touch "$infra/started-redis"
  wait_for "redis (127.0.0.1:6379)" "$ready_timeout" port_open 127.0.0.1 6379
}

# --------------------------------------------------------------------- Kafka
kafka_resolve() {
  if [ -f "$kafka_libs/kafka_2.13-$kafka_version.jar" ] && [ -f "$kafka_libs/reload4j-1.2.25.jar" ]; then
    return
  fi
  command -v java >/dev/null || apt_install openjdk-17-jre-headless
  command -v mvn >/dev/null || apt_install maven
  log "kafka: resolving org.apache.kafka:kafka_2.13:$kafka_version from Maven Central"
  mvn -B -q -f "$root/scripts/kafka/pom.xml" dependency:copy-dependencies \
    || die "kafka: Maven could not resolve the broker (see output above)"
}

kafka_config() {
  mkdir -p "$kafka_dir/data" "$kafka_dir/logs"
  cat >"$kafka_dir/server.properties" <<PROPS
# Generated by scripts/infra.sh: single-node KRaft broker for dev and tests.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$controller_port
listeners=PLAINTEXT://127.0.0.1:$kafka_port,CONTROLLER://127.0.0.1:$controller_port
advertised.listeners=PLAINTEXT://127.0.0.1:$kafka_port
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
log.dirs=$kafka_dir/data
num.partitions=1
default.replication.factor=1
auto.create.topics.enable=false
delete.topic.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=5
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
min.insync.replicas=1
group.initial.rebalance.delay.ms=0
group.min.session.timeout.ms=1000
num.network.threads=2
num.io.threads=4
background.threads=2
log.cleaner.dedupe.buffer.size=2097152
log.retention.hours=24
log.segment.bytes=67108864
# No no-op record in the metadata log every 500 ms (KIP-835's liveness signal,
# for monitoring a controller quorum): a single node has none to monitor, and
# writing and applying them was half of the idle broker's CPU (issue 17, ADR
# 0012 decision 22: 2.1 -> 1.2 % of a core with no client).
metadata.max.idle.interval.ms=0
PROPS
  cat >"$kafka_dir/log4j.properties" <<PROPS
log4j.rootLogger=INFO, file
log4j.appender.file=org.apache.log4j.RollingFileAppender
log4j.appender.file.File=$kafka_dir/logs/server.log
log4j.appender.file.MaxFileSize=20MB
log4j.appender.file.MaxBackupIndex=2
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka=INFO
log4j.logger.org.apache.kafka=INFO
log4j.logger.state.change.logger=WARN
PROPS
}

# Serial GC (issue 17, ADR 0012 decision 22): a 512 MB heap on two cores,
# where G1's concurrent threads cost more CPU than the short young pauses
# they avoid (the JVM picks Serial itself below two cores or 1.8 GB).
java_opts() {
  printf '%s\n' -Xms512m -Xmx512m -XX:+UseSerialGC -Djava.awt.headless=true \
    "-Dlog4j.configuration=file:$kafka_dir/log4j.properties" -cp "$kafka_libs/*"
}

kafka_java() {
  local opts
  mapfile -t opts < <(java_opts)
  java "${opts[@]}" "$@"
}

# The broker this script started, if its process still runs (a zombie or a
# process being torn down after kill -9 does not count).
kafka_pid() {
  local pid state
  pid="$(cat "$kafka_dir/kafka.pid" 2>/dev/null || true)"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
  state="$(awk '/^State:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)"
  case "$state" in Z | X) return 0 ;; esac
  kafka_dying "$pid" && return 0
  echo "$pid"
}

# A process being torn down (kill -9 delivered, or exiting): PF_EXITING in its
# flags, or SIGKILL pending. Its port can still answer for a while.
kafka_dying() {
  local flags pending
  flags="$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | awk '{print $7}')"
  [ -n "$flags" ] || return 0
  (((flags & 4) != 0)) && return 0
  for pending in $(awk '/^(SigPnd|ShdPnd):/ {print $2}' "/proc/$1/status" 2>/dev/null); do
    (((16#$pending & 16#100) != 0)) && return 0
  done
  return 1
}

# After a crash: the old broker must be gone before a new one starts on the
# same data directory. A JVM killed with -9 shows as a zombie while its
# hundreds of threads are still being torn down, and its sockets and lock stay
# until the last one is: wait for every thread, then for the port to close.
kafka_wait_gone() {
  local pid="$1" state tasks deadline=$((SECONDS + 30))
  while [ -n "$pid" ] && [ -d "/proc/$pid" ]; do
    state="$(awk '/^State:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)"
    tasks="$(ls "/proc/$pid/task" 2>/dev/null | wc -l)"
    if [ "$state" = Z ] && [ "$tasks" -le 1 ]; then break; fi
    ((SECONDS < deadline)) || die "kafka: old broker (pid $pid) still running after 30s"
    sleep 0.2
  done
  deadline=$((SECONDS + 10))
  while port_open 127.0.0.1 "$kafka_port" && ((SECONDS < deadline)); do sleep 0.2; done
}

kafka_ready() { node "$root/scripts/kafka-ready.mjs" "127.0.0.1:$kafka_port"; }

# ------------------------------------------------------- Kafka, several nodes
kafka_nodes="${KAFKA_NODES:-1}"
[[ "$kafka_nodes" =~ ^[1-9]$ ]] || die "KAFKA_NODES must be 1 to 9 (got $kafka_nodes)"
cluster_dir="$infra/kafka-cluster-$kafka_port"
node_port() { echo $((kafka_port + 2 * ($1 - 1))); }
node_controller_port() { echo $((kafka_port + 2 * ($1 - 1) + 1)); }
cluster_brokers() {
  local i out=""
  for i in $(seq 1 "$kafka_nodes"); do out="$out${out:+,}127.0.0.1:$(node_port "$i")"; done
  echo "$out"
}
node_pid() {
  local pid
  pid="$(cat "$cluster_dir/node-$1/kafka.pid" 2>/dev/null || true)"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && ! kafka_dying "$pid" && echo "$pid"
  return 0
}

cluster_config() {
  local i="$1" dir="$cluster_dir/node-$1" voters="" v min_isr rf
  for v in $(seq 1 "$kafka_nodes"); do voters="$voters${voters:+,}$v@127.0.0.1:$(node_controller_port "$v")"; done
  rf=$((kafka_nodes < 3 ? kafka_nodes : 3))
  min_isr=$((rf > 1 ? rf - 1 : 1))
  mkdir -p "$dir/data" "$dir/logs"
  cat >"$dir/server.properties" <<PROPS
# Generated by scripts/infra.sh (KAFKA_NODES=$kafka_nodes): node $i of a local KRaft cluster.
process.roles=broker,controller
node.id=$i
controller.quorum.voters=$voters
listeners=PLAINTEXT://127.0.0.1:$(node_port "$i"),CONTROLLER://127.0.0.1:$(node_controller_port "$i")
advertised.listeners=PLAINTEXT://127.0.0.1:$(node_port "$i")
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
log.dirs=$dir/data
num.partitions=1
default.replication.factor=$rf
min.insync.replicas=$min_isr
auto.create.topics.enable=false
delete.topic.enable=true
unclean.leader.election.enable=false
offsets.topic.replication.factor=$rf
offsets.topic.num.partitions=5
transaction.state.log.replication.factor=$rf
transaction.state.log.min.isr=$min_isr
group.initial.rebalance.delay.ms=0
group.min.session.timeout.ms=1000
num.network.threads=2
num.io.threads=2
background.threads=2
log.cleaner.dedupe.buffer.size=2097152
log.retention.hours=24
log.segment.bytes=67108864
PROPS
  sed "s#$kafka_dir#$dir#g" "$kafka_dir/log4j.properties" >"$dir/log4j.properties"
}

cluster_up() {
  if [ -n "${KAFKA_BROKERS:-}" ]; then log "kafka: using KAFKA_BROKERS=$KAFKA_BROKERS"; return; fi
  local i pid cluster_id started=$SECONDS
  kafka_resolve
  kafka_config # the log4j template
  mkdir -p "$cluster_dir"
  if [ ! -f "$cluster_dir/cluster.id" ]; then
    kafka_java kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n 1 >"$cluster_dir/cluster.id"
  fi
  cluster_id="$(cat "$cluster_dir/cluster.id")"
  for i in $(seq 1 "$kafka_nodes"); do
    if [ -n "$(node_pid "$i")" ]; then log "kafka: node $i already running"; continue; fi
    pid="$(cat "$cluster_dir/node-$i/kafka.pid" 2>/dev/null || true)"
    if [ -n "$pid" ]; then
      # Crashed or killed (-9): its port can stay open while the JVM is torn down.
      log "kafka: node $i (pid $pid) is gone; restarting it on its data"
      local deadline=$((SECONDS + 30))
      while [ -d "/proc/$pid" ] && [ "$(awk '/^State:/ {print $2}' "/proc/$pid/status" 2>/dev/null)" != Z ] && ((SECONDS < deadline)); do sleep 0.2; done
      deadline=$((SECONDS + 10))
      while { port_open 127.0.0.1 "$(node_port "$i")" || port_open 127.0.0.1 "$(node_controller_port "$i")"; } && ((SECONDS < deadline)); do sleep 0.2; done
      rm -f "$cluster_dir/node-$i/kafka.pid"
    fi
    port_open 127.0.0.1 "$(node_port "$i")" && die "kafka: port $(node_port "$i") is taken by something this script did not start"
    port_open 127.0.0.1 "$(node_controller_port "$i")" && die "kafka: port $(node_controller_port "$i") is taken by something this script did not start"
    cluster_config "$i"
    local dir="$cluster_dir/node-$i"
    if [ ! -f "$dir/data/meta.properties" ]; then
      kafka_java kafka.tools.StorageTool format -t "$cluster_id" -c "$dir/server.properties" \
        >"$dir/logs/format.log" 2>&1 || die "kafka: node $i storage format failed (see $dir/logs/format.log)"
    fi
    log "kafka: starting node $i on 127.0.0.1:$(node_port "$i") (controller $(node_controller_port "$i"))"
    nohup java -Xms384m -Xmx384m -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
      "-Dlog4j.configuration=file:$dir/log4j.properties" -cp "$kafka_libs/*" \
      kafka.Kafka "$dir/server.properties" </dev/null >"$dir/logs/stdout.log" 2>&1 &
    echo $! >"$dir/kafka.pid"
  done
  for i in $(seq 1 "$kafka_nodes"); do
    wait_for "kafka node $i (127.0.0.1:$(node_port "$i") describeCluster)" "$ready_timeout" \
      node "$root/scripts/kafka-ready.mjs" "127.0.0.1:$(node_port "$i")" "$kafka_nodes"
  done
  log "kafka: $kafka_nodes-node cluster ready in $((SECONDS - started))s: KAFKA_BROKERS=$(cluster_brokers)"
}

cluster_down() {
  local i pid
  for i in $(seq 1 "$kafka_nodes"); do
    pid="$(node_pid "$i")"
    [ -n "$pid" ] || continue
    log "kafka: stopping node $i (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
  done
  for i in $(seq 1 "$kafka_nodes"); do
    pid="$(cat "$cluster_dir/node-$i/kafka.pid" 2>/dev/null || true)"
    [ -n "$pid" ] || continue
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$pid" 2>/dev/null; then log "kafka: node $i still running after 30s, killing"; kill -KILL "$pid" || true; fi
    rm -f "$cluster_dir/node-$i/kafka.pid"
  done
}

kafka_up() {
  if [ "$kafka_nodes" -gt 1 ]; then cluster_up; return; fi
  if [ -n "${KAFKA_BROKERS:-}" ]; then log "kafka: using KAFKA_BROKERS=$KAFKA_BROKERS"; return; fi
  local old_pid running
  old_pid="$(cat "$kafka_dir/kafka.pid" 2>/dev/null || true)"
  running="$(kafka_pid)"
  if [ -n "$running" ]; then
    # Ours and alive: running already, or still starting.
    log "kafka: broker already running (pid $running)"
    wait_for "kafka (127.0.0.1:$kafka_port describeCluster)" "$ready_timeout" kafka_ready
    return
  fi
  if [ -n "$old_pid" ]; then
    # Ours, but crashed or killed: its port may stay open while the process is torn down.
    log "kafka: broker pid $old_pid is gone; restarting on the same data"
    kafka_wait_gone "$old_pid"
    rm -f "$kafka_dir/kafka.pid"
  fi
  if port_open 127.0.0.1 "$kafka_port"; then
    log "kafka: 127.0.0.1:$kafka_port answers"
    wait_for "kafka (127.0.0.1:$kafka_port describeCluster)" "$ready_timeout" kafka_ready
    return
  fi
  kafka_resolve
  kafka_config
  if [ ! -f "$kafka_dir/data/meta.properties" ]; then
    local cluster_id
    cluster_id="$(kafka_java kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n 1)"
    log "kafka: formatting storage (cluster $cluster_id)"
    kafka_java kafka.tools.StorageTool format -t "$cluster_id" -c "$kafka_dir/server.properties" \
      >"$kafka_dir/logs/format.log" 2>&1 || die "kafka: storage format failed (see $kafka_dir/logs/format.log)"
  fi
  log "kafka: starting broker $kafka_version on 127.0.0.1:$kafka_port"
  local opts
  mapfile -t opts < <(java_opts)
  nohup java "${opts[@]}" kafka.Kafka "$kafka_dir/server.properties" </dev/null >"$kafka_dir/logs/stdout.log" 2>&1 &
  echo $! >"$kafka_dir/kafka.pid"
  local started=$SECONDS deadline=$((SECONDS + ready_timeout))
  until port_open 127.0.0.1 "$kafka_port"; do
    [ -n "$(kafka_pid)" ] || die "kafka: broker exited during start-up (see $kafka_dir/logs/stdout.log and server.log)"
    ((SECONDS < deadline)) || die "kafka: port $kafka_port not open within ${ready_timeout}s (see $kafka_dir/logs/server.log)"
    sleep 0.5
  done
  wait_for "kafka (127.0.0.1:$kafka_port describeCluster)" "$ready_timeout" kafka_ready
  log "kafka: ready in $((SECONDS - started))s"
}

kafka_down() {
  if [ "$kafka_nodes" -gt 1 ]; then cluster_down; return; fi
  local pid
  pid="$(kafka_pid)"
  [ -n "$pid" ] || { log "kafka: not started by this script"; return; }
  log "kafka: stopping (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  if kill -0 "$pid" 2>/dev/null; then log "kafka: still running after 30s, killing"; kill -KILL "$pid" || true; fi
  rm -f "$kafka_dir/kafka.pid"
}

# ------------------------------------------------------------------ commands
cmd="${1:-up}"
mkdir -p "$infra"
case "$cmd" in
  up)
    command -v node >/dev/null || die "node is required"
    [ -d "$root/node_modules/kafkajs" ] || die "run npm ci first (kafkajs is needed for the readiness check)"
    postgres_up
    redis_up
    kafka_up
    log "ready: postgres, redis, kafka"
    ;;
  kafka-up)
    command -v node >/dev/null || die "node is required"
    kafka_up
    ;;
  kafka-down)
    kafka_down
    ;;
  down)
    kafka_down
    if [ -f "$infra/started-redis" ] && [ -f "$infra/redis/redis.pid" ]; then
      log "redis: stopping"; kill "$(cat "$infra/redis/redis.pid")" 2>/dev/null || true; rm -f "$infra/started-redis"
    fi
    # A PostgreSQL cluster started here is left running: it is the machine's.
    ;;
  status)
    kafka_checks=("kafka 127.0.0.1 $kafka_port")
    if [ "$kafka_nodes" -gt 1 ]; then
      kafka_checks=()
      for i in $(seq 1 "$kafka_nodes"); do kafka_checks+=("kafka-node-$i 127.0.0.1 $(node_port "$i")"); done
    fi
    for s in "postgres 127.0.0.1 5432" "redis 127.0.0.1 6379" "${kafka_checks[@]}"; do
      set -- $s
      if port_open "$2" "$3"; then echo "$1: up ($2:$3)"; else echo "$1: down ($2:$3)"; fi
    done
    ;;
  *) die "usage: $0 up|down|status|kafka-up|kafka-down" ;;
esac

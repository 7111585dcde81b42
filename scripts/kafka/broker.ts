// The local single-node Apache Kafka broker (KRaft, broker+controller in one JVM) that `npm start`
// and the tests use when no KAFKA_BROKERS is given. Jars are fetched once from Maven Central into
// .cache/ (later runs work offline); data lives under the caller's dataDir and survives restarts.
// Invariant: a broker this process started never outlives it (exit/signal hooks and a watchdog).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { fromRoot } from '../../core/paths.js';

export interface StartBrokerOptions {
  port: number;
  dataDir: string;
  host?: string;
  /** 0 or omitted: a free port is picked. */
  controllerPort?: number;
  /** Receives the broker's log lines as they are written to `<dataDir>/broker.log`. */
  log?: (line: string) => void;
  /** How long to wait for the broker to accept an acks=all produce; default 120 s. */
  readyTimeoutMs?: number;
}

export interface RunningBroker {
  brokers: string[];
  pid: number;
  logFile: string;
  /** Settles when the JVM exits, whoever ended it (a supervisor restarts it; see broker-supervisor.ts). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

const POM = fromRoot('scripts', 'kafka', 'pom.xml');
const BROKER_LOG4J = fromRoot('scripts', 'kafka', 'log4j.properties');
export const TOOLS_LOG4J = fromRoot('scripts', 'kafka', 'tools-log4j.properties');
const READY_TOPIC = 'marginal-broker-ready';
const STOP_GRACE_MS = 20_000;

/** The Kafka version pinned in pom.xml, which stays the one place that names it. */
export function kafkaVersion(): string {
  const m = /<kafka\.version>([^<]+)<\/kafka\.version>/.exec(fs.readFileSync(POM, 'utf8'));
  if (!m) throw new Error(`no <kafka.version> in ${POM}`);
  return m[1].trim();
}

export function javaBin(): string {
  return process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, 'bin', 'java') : 'java';
}

// Serial GC and C1 only: the fastest start on 2 cores, and plenty for a dev broker.
const JVM_FLAGS = [
  '-Xms256m',
  '-Xmx512m',
  '-XX:+UseSerialGC',
  '-XX:TieredStopAtLevel=1',
  '-XX:+ExitOnOutOfMemoryError',
  '-Djava.awt.headless=true',
];

/**
 * JVM flags for a quick start on a small machine. MARGINAL_KAFKA_JVM_OPTS (space-separated) is
 * appended, so a later flag there wins (e.g. -Xmx2g, -XX:TieredStopAtLevel=4).
 */
export function brokerJvmFlags(env: NodeJS.ProcessEnv = process.env): string[] {
  return [...JVM_FLAGS, ...(env.MARGINAL_KAFKA_JVM_OPTS ?? '').split(/\s+/).filter(Boolean)];
}

function run(cmd: string, args: string[], timeoutMs: number): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) {
        const detail = `${stderr}\n${stdout}`.trim().split('\n').slice(-30).join('\n');
        reject(new Error(`${err.message.split('\n')[0]}\n${detail}`));
      } else resolve({ stdout, stderr });
    });
  });
}

/**
 * Makes sure the pinned Kafka jars are in `.cache/kafka-<version>/libs` and returns that folder.
 * Maven runs only when the folder lacks its completion marker (which records the pom's hash),
 * so once fetched, starts work offline.
 */
export function ensureKafkaJars(): Promise<string> {
  // One fetch per process even when several brokers start at once.
  fetchingJars ??= fetchKafkaJars().finally(() => {
    fetchingJars = null;
  });
  return fetchingJars;
}
let fetchingJars: Promise<string> | null = null;

async function fetchKafkaJars(): Promise<string> {
  const pom = fs.readFileSync(POM);
  const pomHash = crypto.createHash('sha256').update(pom).digest('hex');
  const base = fromRoot('.cache', `kafka-${kafkaVersion()}`);
  const libs = path.join(base, 'libs');
  const marker = path.join(libs, '.complete');
  const isComplete = (): boolean => fs.existsSync(marker) && fs.readFileSync(marker, 'utf8').trim() === pomHash;
  if (isComplete()) return libs;

  // Fetch into a private folder and rename it into place, so a concurrent or interrupted fetch
  // never leaves a half-filled libs folder that looks complete.
  fs.mkdirSync(base, { recursive: true });
  const staging = fs.mkdtempSync(path.join(base, 'libs.fetch-'));
  try {
    await run('mvn', ['-q', '-B', '-f', POM, 'dependency:copy-dependencies', `-DoutputDirectory=${staging}`], 600_000).catch((e: Error) => {
      throw new Error(`fetching the Kafka jars with Maven failed (needs mvn and Maven Central once): ${e.message}`);
    });
    if (!fs.readdirSync(staging).some((f) => f.startsWith('kafka_2.13-'))) {
      throw new Error(`Maven finished but ${staging} holds no kafka_2.13 jar`);
    }
    fs.writeFileSync(path.join(staging, '.complete'), `${pomHash}\n`);
    if (isComplete()) return libs; // another process finished first; keep its folder
    fs.rmSync(libs, { recursive: true, force: true });
    try {
      fs.renameSync(staging, libs);
    } catch (e) {
      // Another process won the race; its folder is as good as ours.
      if (!isComplete()) throw e;
    }
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return libs;
}

export function classpath(libs: string): string {
  return path.join(libs, '*');
}

/** A port nobody listens on right now (the OS picks it). */
export function findFreePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, host, () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** True when nothing listens on host:port (binding it succeeds). */
export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, host, () => srv.close(() => resolve(true)));
  });
}

function serverProperties(o: { host: string; port: number; controllerPort: number; logDir: string }): string {
  return [
    '# Written by scripts/kafka/broker.ts at every start; edits here are overwritten.',
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@${o.host}:${o.controllerPort}`,
    `listeners=PLAINTEXT://${o.host}:${o.port},CONTROLLER://${o.host}:${o.controllerPort}`,
    `advertised.listeners=PLAINTEXT://${o.host}:${o.port}`,
    'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    `log.dirs=${o.logDir}`,
    // One node: every replication factor and ISR minimum is 1.
    'offsets.topic.replication.factor=1',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'default.replication.factor=1',
    'min.insync.replicas=1',
    // A single coordinator serves every group anyway; one partition makes the first join quick.
    'offsets.topic.num.partitions=1',
    'transaction.state.log.num.partitions=1',
    'num.partitions=1',
    // Topics are created explicitly (core/kafka/topics), so a typo never makes a new topic.
    'auto.create.topics.enable=false',
    // Consumers join at once instead of waiting 3 s for more members (tests, single process).
    'group.initial.rebalance.delay.ms=0',
    'num.network.threads=2',
    'num.io.threads=4',
    // A quick restart after a crash (docs/decisions/0042-local-broker-settings-for-a-quick-restart.md,
    // bench/results/recovery.md). After an unclean stop Kafka re-reads every log segment past the partition's recovery point, which
    // only moves when the log is flushed: by default at a segment roll, so the whole 1 GB active
    // segment. Flushing every 5 s in the background (and writing the recovery-point checkpoint as
    // often) bounds that to the last seconds of writes; smaller segments bound what a roll leaves
    // unflushed and the producer-state rebuild (snapshots are taken at rolls).
    'log.flush.scheduler.interval.ms=1000',
    'log.flush.interval.ms=5000',
    'log.flush.offset.checkpoint.interval.ms=5000',
    'log.flush.start.offset.checkpoint.interval.ms=5000',
    'log.segment.bytes=134217728',
    'num.recovery.threads.per.data.dir=2',
    // A restarted broker cannot register while its previous incarnation's session with the
    // controller lives (DUPLICATE_BROKER_REGISTRATION, retried every 2 s): 9 s by default, the
    // largest part of a restart after a crash. Broker and controller share this JVM, so a short
    // session costs nothing: a broker that misses it is fenced and unfenced by its next heartbeat.
    'broker.session.timeout.ms=3000',
    'broker.heartbeat.interval.ms=500',
    'log.retention.hours=168',
    '',
  ].join('\n');
}

/** What a start failure shows: the log's first errors (the cause) and its last lines. */
function logExcerpt(file: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return '(no log written)';
  }
  const lines = text.split('\n');
  const errors = lines.filter((l) => / (ERROR|FATAL) /.test(l)).slice(0, 5);
  const last = lines.slice(-20).join('\n');
  return errors.length ? `first errors:\n${errors.join('\n')}\nlast lines:\n${last}` : `last lines:\n${last}`;
}

/** A broker still running on this data dir (from its pid file "<jvm pid> <owner pid>"), if any. */
function runningBroker(pidFile: string): { pid: number; ownerAlive: boolean } | null {
  let fields: number[];
  try {
    fields = fs.readFileSync(pidFile, 'utf8').trim().split(/\s+/).map(Number);
  } catch {
    return null;
  }
  const [pid, owner] = fields;
  if (!pid || !Number.isInteger(pid) || pid <= 0) return null;
  try {
    // A reused pid belongs to some other program: only a kafka.Kafka command line counts.
    if (!fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('kafka.Kafka')) return null;
  } catch {
    return null;
  }
  // Pid files of older versions name no owner: treat that broker as someone's.
  return { pid, ownerAlive: owner === undefined || !Number.isInteger(owner) || owner <= 0 || isProcessAlive(owner) };
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A broker whose owner died (a SIGKILLed `npm start`) is being stopped by its watchdog; a restart
 * on the same data waits for that (up to the watchdog's grace), then kills what is left.
 */
async function waitForOrphan(pid: number): Promise<void> {
  const gone = () => !isProcessAlive(pid) || !fs.existsSync(`/proc/${pid}`);
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + STOP_GRACE_MS;
  while (!gone() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (!gone()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone meanwhile */
    }
    while (!gone()) await new Promise((r) => setTimeout(r, 100));
  }
}

/** Formats the KRaft storage once; later starts find meta.properties and keep the data. */
async function formatStorageOnce(libs: string, propsFile: string, logDir: string): Promise<void> {
  if (fs.existsSync(path.join(logDir, 'meta.properties'))) return;
  fs.mkdirSync(logDir, { recursive: true });
  // Kafka cluster ids are 16 random bytes in URL-safe base64 without padding (22 characters);
  // like Kafka's own Uuid.randomUuid, skip ids starting with '-', which read as a CLI flag.
  let clusterId: string;
  do clusterId = crypto.randomBytes(16).toString('base64url');
  while (clusterId.startsWith('-'));
  await run(
    javaBin(),
    [
      '-Xmx256m',
      '-XX:+UseSerialGC',
      '-XX:TieredStopAtLevel=1',
      `-Dlog4j.configuration=file:${TOOLS_LOG4J}`,
      '-cp',
      classpath(libs),
      'kafka.tools.StorageTool',
      'format',
      '-t',
      clusterId,
      '-c',
      propsFile,
    ],
    120_000,
  );
}

// ---- children that must not outlive this process -------------------------------------------

interface Tracked {
  jvm: ChildProcess;
  stop(): Promise<void>;
}
const live = new Set<Tracked>();
let hooksInstalled = false;

function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  // Last resort on any exit: ask each broker to shut down (it finishes on its own; the
  // watchdog escalates to SIGKILL if it hangs).
  process.on('exit', () => {
    for (const t of live) t.jvm.kill('SIGTERM');
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    let stopping = false;
    const onSignal = (): void => {
      // Someone else handles this signal (an app's orderly shutdown, the kafka CLI): they stop
      // their brokers themselves and the exit hook covers the rest.
      if (process.listenerCount(sig) > 1) return;
      if (stopping) {
        for (const t of live) t.jvm.kill('SIGKILL');
        process.exit(128 + (sig === 'SIGINT' ? 2 : sig === 'SIGTERM' ? 15 : 1));
      }
      stopping = true;
      void Promise.allSettled([...live].map((t) => t.stop())).then(() => {
        // Re-raise with the default disposition so the exit status says which signal it was.
        process.removeListener(sig, onSignal);
        process.kill(process.pid, sig);
      });
    };
    process.on(sig, onSignal);
  }
}

/**
 * A tiny shell that holds the read end of a pipe from this process. When this process dies in
 * any way (even SIGKILL) the pipe closes, `read` returns, and the shell sends `pid` SIGTERM, then
 * SIGKILL if it is still there after the grace (the JVM; also the all-in-one's lake catalog).
 */
export function spawnWatchdog(pid: number, name = 'kafka-watchdog'): ChildProcess {
  const script =
    'read _ignored; kill -TERM "$1" 2>/dev/null; i=0; ' +
    `while [ $i -lt ${STOP_GRACE_MS / 500} ] && kill -0 "$1" 2>/dev/null; do sleep 0.5; i=$((i+1)); done; ` +
    'kill -KILL "$1" 2>/dev/null';
  const dog = spawn('/bin/sh', ['-c', script, name, String(pid)], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
  });
  dog.unref();
  (dog.stdin as unknown as net.Socket | null)?.unref();
  return dog;
}

function followLog(file: string, onLine: (line: string) => void): () => void {
  let offset = 0;
  let partial = '';
  const drain = (): void => {
    let fd: number;
    try {
      fd = fs.openSync(file, 'r');
    } catch {
      return;
    }
    try {
      const buf = Buffer.alloc(64 * 1024);
      for (;;) {
        const n = fs.readSync(fd, buf, 0, buf.length, offset);
        if (n <= 0) break;
        offset += n;
        const lines = (partial + buf.subarray(0, n).toString('utf8')).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) if (line) onLine(line);
      }
    } finally {
      fs.closeSync(fd);
    }
  };
  const timer = setInterval(drain, 250);
  timer.unref();
  return () => {
    clearInterval(timer);
    drain();
    if (partial) onLine(partial);
    partial = '';
  };
}

/**
 * Resolves once the broker takes an acks=all write from an idempotent producer and can
 * coordinate consumer groups (the first lookup creates __consumer_offsets; doing it here keeps
 * that wait out of the first consumer's join).
 */
async function waitUntilReady(brokers: string[], jvm: ChildProcess, logFile: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const kafka = new Kafka({
    clientId: 'marginal-broker-probe',
    brokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1000,
    requestTimeout: 5000,
    retry: { retries: 0 },
  });
  let produced = false;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (jvm.exitCode !== null || jvm.signalCode !== null) {
      throw new Error(
        `Kafka broker exited during start (code ${jvm.exitCode}, signal ${jvm.signalCode}); ` + `from ${logFile}, ${logExcerpt(logFile)}`,
      );
    }
    const admin = kafka.admin({ retry: { retries: 0 } });
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, retry: { retries: 1 } });
    try {
      await admin.connect();
      // Also loads cluster metadata, which describeGroups needs and does not fetch itself.
      const topics = await admin.listTopics();
      if (!produced) {
        if (!topics.includes(READY_TOPIC)) {
          await admin.createTopics({
            topics: [{ topic: READY_TOPIC, numPartitions: 1, replicationFactor: 1 }],
            waitForLeaders: true,
          });
        }
        await producer.connect();
        await producer.send({ topic: READY_TOPIC, acks: -1, messages: [{ value: new Date().toISOString() }] });
        produced = true;
      }
      await admin.describeGroups([READY_TOPIC]);
      return;
    } catch (e) {
      lastError = e;
      // Polled often: after a crash every second of this wait is a second without ingest.
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      await producer.disconnect().catch(() => {});
      await admin.disconnect().catch(() => {});
    }
  }
  throw new Error(
    `Kafka broker at ${brokers.join(',')} was not ready within ${timeoutMs} ms ` +
      `(last error: ${lastError instanceof Error ? lastError.message : String(lastError)}); ` +
      `from ${logFile}, ${logExcerpt(logFile)}`,
  );
}

function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * Starts a single-node KRaft broker listening on host:port (default 127.0.0.1) with its data
 * under dataDir, and resolves once it accepts producers and consumer groups. `stop()` shuts it down in order
 * (SIGTERM → controlled shutdown), killing it after 20 s if it hangs.
 */
export async function startBroker(opts: StartBrokerOptions): Promise<RunningBroker> {
  const host = opts.host ?? '127.0.0.1';
  const dataDir = path.resolve(opts.dataDir);
  fs.mkdirSync(dataDir, { recursive: true });
  const pidFile = path.join(dataDir, 'broker.pid');
  const running = runningBroker(pidFile);
  if (running?.ownerAlive) throw new Error(`a Kafka broker (pid ${running.pid}) already runs on ${dataDir}; stop it first`);
  if (running) await waitForOrphan(running.pid);
  if (!(await isPortFree(opts.port, host))) {
    throw new Error(`cannot start Kafka: ${host}:${opts.port} is already in use`);
  }
  const libs = await ensureKafkaJars();
  const controllerPort = opts.controllerPort || (await findFreePort(host));

  const logDir = path.join(dataDir, 'kraft');
  const propsFile = path.join(dataDir, 'server.properties');
  fs.writeFileSync(propsFile, serverProperties({ host, port: opts.port, controllerPort, logDir }));
  await formatStorageOnce(libs, propsFile, logDir);

  const logFile = path.join(dataDir, 'broker.log');
  if (fs.existsSync(logFile)) fs.renameSync(logFile, `${logFile}.1`);
  const out = fs.openSync(logFile, 'w');
  // Own process group (detached): a terminal Ctrl-C reaches only Node, which then stops the
  // broker after the services that use it, instead of Kafka vanishing under them.
  const jvm = spawn(
    javaBin(),
    [
      ...brokerJvmFlags(),
      `-Dlog4j.configuration=file:${BROKER_LOG4J}`,
      `-Dkafka.logs.dir=${dataDir}`,
      '-cp',
      classpath(libs),
      'kafka.Kafka',
      propsFile,
    ],
    { stdio: ['ignore', out, out], detached: true },
  );
  fs.closeSync(out);
  if (jvm.pid === undefined) {
    await new Promise((r) => jvm.once('error', r));
    throw new Error(`could not run ${javaBin()} (is Java 17 installed?)`);
  }
  const pid = jvm.pid;
  jvm.on('error', () => {}); // a failed kill() reports here; the exit event tells the rest
  fs.writeFileSync(pidFile, `${pid} ${process.pid}\n`);
  const watchdog = spawnWatchdog(pid);
  const unfollow = opts.log ? followLog(logFile, opts.log) : () => {};

  let stopped: Promise<void> | null = null;
  const tracked: Tracked = {
    jvm,
    stop: () => {
      stopped ??= (async () => {
        if (jvm.exitCode === null && jvm.signalCode === null) {
          jvm.kill('SIGTERM');
          if (!(await waitForExit(jvm, STOP_GRACE_MS))) {
            jvm.kill('SIGKILL');
            await waitForExit(jvm, 5_000);
          }
        }
      })();
      return stopped;
    },
  };
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    jvm.once('exit', (code, signal) => {
      live.delete(tracked);
      fs.rmSync(pidFile, { force: true });
      watchdog.kill('SIGKILL');
      unfollow();
      resolve({ code, signal });
    });
  });
  live.add(tracked);
  installExitHooks();

  const brokers = [`${host}:${opts.port}`];
  try {
    await waitUntilReady(brokers, jvm, logFile, opts.readyTimeoutMs ?? 120_000);
  } catch (e) {
    await tracked.stop();
    throw e;
  }
  return { brokers, pid, logFile, exited, stop: tracked.stop };
}

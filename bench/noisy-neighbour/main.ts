// Noisy-neighbour bench (issue 16): does one client sending every bad input in a loop cost another
// organization anything? Starts the all-in-one service as a child process (free ports, temp
// DATA_DIR, rate limits raised so every bad request reaches validation), two organizations through
// the admin API, then alternates rounds: the victim's valid single events from `clients`
// concurrent loops alone, then the same load while the attacker's one client loops over the bad
// inputs (bench/noisy-neighbour/clients.ts, both in their own processes). Target: with the
// attacker, the victim keeps ≥ 90% of its throughput alone, with 0 non-2xx answers, and every
// attacker request is a 4xx. Writes bench/results/noisy-neighbour.{json,md}.
// The attacker is paced (--attacker-rate, default 100 requests/s: 6,000 a minute, 60 times the
// default ingest limit of one key) so the figure measures interference between tenants rather
// than plain CPU sharing on a small machine; --attacker-rate 0 sends as fast as answers come.
//   npx tsx bench/noisy-neighbour/main.ts [--seconds 15] [--rounds 2] [--clients 16] [--attacker-rate 100] [--no-write]
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { fromRoot, projectRoot } from '../../core/paths.js';
import { createServiceTenant, startLocalService, type ServiceTenant } from '../../scripts/local-service.js';
import type { ClientsConfig, ClientsResult } from './clients.js';
import { agent, namedBadInputs, send, validEvent, type Req } from './requests.js';

/** CPU seconds the service process (all its threads) has used, from /proc (Linux; 100 ticks/s). */
function serviceCpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * What one request of each kind costs the service, sent one at a time with nothing else running:
 * CPU milliseconds per request (all threads of the service process) and the answer.
 */
async function costPerRequest(
  url: string,
  pid: number,
  kinds: Array<[string, (i: number) => Req]>,
  n = 400,
): Promise<Array<{ kind: string; cpuMs: number; answers: string }>> {
  const base = new URL(url);
  const out = [];
  for (const [kind, make] of kinds) {
    for (let i = 0; i < 50; i++) await send(base, make(-i - 1));
    const before = serviceCpuSeconds(pid);
    const answers: Record<string, number> = {};
    for (let i = 0; i < n; i++) {
      const a = await send(base, make(i));
      answers[a] = (answers[a] ?? 0) + 1;
    }
    out.push({
      kind,
      cpuMs: Math.round(((serviceCpuSeconds(pid) - before) * 1000 * 100) / n) / 100,
      answers: Object.keys(answers).join(', '),
    });
  }
  agent.destroy();
  return out;
}

function runClients(cfg: ClientsConfig): Promise<ClientsResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fromRoot('bench', 'noisy-neighbour', 'clients.ts'), JSON.stringify(cfg)], {
      cwd: projectRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`${cfg.role} load exited with ${code}`)),
    );
  });
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const non2xx = (r: ClientsResult) =>
  sum(
    Object.entries(r.byStatus)
      .filter(([s]) => !s.startsWith('2'))
      .map(([, n]) => n),
  );
// A bad batch answers 200 with the event's error in its slot ("200:VALIDATION_ERROR"): a refusal too.
const refused = (label: string) => label.startsWith('4') || /^200:[A-Z_]+$/.test(label);
const nonClientError = (r: ClientsResult) =>
  sum(
    Object.entries(r.byStatus)
      .filter(([s]) => !refused(s))
      .map(([, n]) => n),
  );

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '15' },
      rounds: { type: 'string', default: '2' },
      clients: { type: 'string', default: '16' },
      'attacker-rate': { type: 'string', default: '100' },
      'no-write': { type: 'boolean', default: false },
    },
  });
  const seconds = Number(values.seconds);
  const clients = Number(values.clients);
  const svc = await startLocalService({
    env: { RATE_LIMIT_INGEST_PER_MINUTE: '1000000000', RATE_LIMIT_READ_PER_15_MINUTES: '1000000000' },
  });
  try {
    const victim = await createServiceTenant(svc, 'victim', 100_000_000);
    const attacker = await createServiceTenant(svc, 'attacker', 100_000_000);
    const cfg = (role: 'victim' | 'attacker', t: ServiceTenant, runId: string): ClientsConfig => ({
      role,
      url: svc.url,
      apiKey: t.apiKey,
      signingSecret: t.signingSecret,
      seconds,
      clients,
      runId,
      ratePerSecond: Number(values['attacker-rate']),
    });
    // Warm-up: JIT, connections, the first Kafka sends.
    await runClients({ ...cfg('victim', victim, 'warmup'), seconds: 5 });
    const alone: ClientsResult[] = [];
    const withAttacker: ClientsResult[] = [];
    const attacks: ClientsResult[] = [];
    const runAlone = async (round: number) => {
      alone.push(await runClients(cfg('victim', victim, `alone-${round}`)));
      console.error(`round ${round} alone: ${JSON.stringify(alone.at(-1))}`);
    };
    const runNoisy = async (round: number) => {
      const [v, a] = await Promise.all([
        runClients(cfg('victim', victim, `noisy-${round}`)),
        runClients(cfg('attacker', attacker, `bad-${round}-${crypto.randomUUID()}`)),
      ]);
      withAttacker.push(v);
      attacks.push(a);
      console.error(`round ${round} with attacker: ${JSON.stringify(v)}; attacker: ${JSON.stringify(a)}`);
    };
    // Alternating order (alone first, then with the attacker first, …) so a drift of the machine's
    // load (other work on a shared host) does not land on one side.
    for (let round = 0; round < Number(values.rounds); round++) {
      if (round % 2 === 0) {
        await runAlone(round);
        await runNoisy(round);
      } else {
        await runNoisy(round);
        await runAlone(round);
      }
    }
    const kinds: Array<[string, (i: number) => Req]> = [
      ['valid single event (for comparison)', (i) => validEvent(victim, `cost-${i}`)],
      ...namedBadInputs(attacker, 'cost').map(([name], j): [string, (i: number) => Req] => [
        name,
        (i) => namedBadInputs(attacker, `cost-${i}`)[j]![1],
      ]),
    ];
    const costs = await costPerRequest(svc.url, svc.pid, kinds);
    const aloneRate = sum(alone.map((r) => r.perSecond)) / alone.length;
    const noisyRate = sum(withAttacker.map((r) => r.perSecond)) / withAttacker.length;
    const roundRatios = alone.map((a, i) => withAttacker[i]!.perSecond / a.perSecond).sort((x, y) => x - y);
    const medianRatio =
      roundRatios.length % 2
        ? roundRatios[(roundRatios.length - 1) / 2]!
        : (roundRatios[roundRatios.length / 2 - 1]! + roundRatios[roundRatios.length / 2]!) / 2;
    const result = {
      date: new Date().toISOString(),
      machine: {
        cpus: os.cpus().length,
        model: os.cpus()[0]?.model ?? 'unknown',
        loadAverage: os
          .loadavg()
          .map((x) => x.toFixed(2))
          .join(' '),
      },
      settings: {
        seconds,
        rounds: Number(values.rounds),
        victimClients: clients,
        attackerClients: 1,
        attackerRatePerSecond: Number(values['attacker-rate']),
      },
      victimAlonePerSecond: Math.round(aloneRate),
      victimWithAttackerPerSecond: Math.round(noisyRate),
      keptPercent: Math.round((noisyRate / aloneRate) * 1000) / 10,
      /** Per round (each round's two runs back to back), the median ratio: less sensitive to the host's load drifting. */
      keptPercentMedianOfRounds: Math.round(medianRatio * 1000) / 10,
      keptPercentPerRound: alone.map((a, i) => Math.round((withAttacker[i]!.perSecond / a.perSecond) * 1000) / 10),
      victimNon2xx: sum(withAttacker.map(non2xx)) + sum(alone.map(non2xx)),
      attackerRequests: sum(attacks.map((r) => r.requests)),
      attackerPerSecond: Math.round(sum(attacks.map((r) => r.perSecond)) / attacks.length),
      attackerNon4xx: sum(attacks.map(nonClientError)),
      attackerByStatus: attacks.reduce<Record<string, number>>((acc, r) => {
        for (const [s, n] of Object.entries(r.byStatus)) acc[s] = (acc[s] ?? 0) + n;
        return acc;
      }, {}),
      costPerRequest: costs,
      rounds: alone.map((a, i) => ({ alone: a, withAttacker: withAttacker[i], attacker: attacks[i] })),
    };
    const pass = result.keptPercent >= 90 && result.victimNon2xx === 0 && result.attackerNon4xx === 0;
    console.log(JSON.stringify({ ...result, rounds: undefined, costPerRequest: undefined, pass }, null, 2));
    for (const c of costs) console.log(`${c.cpuMs.toFixed(2)} ms CPU  ${c.kind} (${c.answers})`);
    if (!values['no-write']) {
      fs.writeFileSync(fromRoot('bench', 'results', 'noisy-neighbour.json'), `${JSON.stringify({ ...result, pass }, null, 2)}\n`);
      fs.writeFileSync(fromRoot('bench', 'results', 'noisy-neighbour.md'), markdown(result, pass));
    }
  } finally {
    await svc.stop();
  }
}

function markdown(
  r: {
    date: string;
    machine: { cpus: number; model: string; loadAverage: string };
    settings: Record<string, number>;
    victimAlonePerSecond: number;
    victimWithAttackerPerSecond: number;
    keptPercent: number;
    keptPercentMedianOfRounds: number;
    keptPercentPerRound: number[];
    victimNon2xx: number;
    attackerRequests: number;
    attackerPerSecond: number;
    attackerNon4xx: number;
    attackerByStatus: Record<string, number>;
    costPerRequest: Array<{ kind: string; cpuMs: number; answers: string }>;
  },
  pass: boolean,
): string {
  return [
    '# Noisy neighbour (`npx tsx bench/noisy-neighbour/main.ts`)',
    '',
    `${r.date}, ${r.machine.cpus} cores (${r.machine.model}), load average at the end ${r.machine.loadAverage}. All-in-one service as a child`,
    `process (PGlite, local Kafka), rate limits raised so every request reaches validation. ${r.settings.rounds} rounds of ${r.settings.seconds} s:`,
    `the victim organization's valid single events from ${r.settings.victimClients} concurrent clients alone, then with ONE client of another`,
    `organization sending every bad input of issue 16 in a loop (${r.settings.attackerRatePerSecond ? `at most ${r.settings.attackerRatePerSecond} requests/s` : 'unpaced'}; year-0 timestamps, lone surrogates in key/model/metric/unit/provider,`,
    'metadata 5,000 deep, 2^53-1 tokens, a bad batch, non-gzip bodies sent as gzip, NUL and malformed percent-encoding in read',
    'parameters and path ids, offsets beyond int64 and 1e26).',
    '',
    '| | value |',
    '|---|---|',
    `| victim alone | ${r.victimAlonePerSecond} events/s |`,
    `| victim with the attacker | ${r.victimWithAttackerPerSecond} events/s |`,
    `| throughput kept (means) | **${r.keptPercent}%** (target ≥ 90%) |`,
    `| throughput kept per round (alternating order), median | ${r.keptPercentPerRound.join('%, ')}%; median ${r.keptPercentMedianOfRounds}% |`,
    `| victim non-2xx answers | **${r.victimNon2xx}** (target 0) |`,
    `| attacker requests | ${r.attackerRequests} (${r.attackerPerSecond}/s), by status: ${Object.entries(r.attackerByStatus)
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ')} |`,
    `| attacker answers that were not a refusal (4xx, or a batch's 200 with the event's error) | **${r.attackerNon4xx}** (target 0) |`,
    '',
    `Result: ${pass ? 'PASS' : 'FAIL'} (the throughput target on the means, 0 non-2xx, 0 attacker answers that were not a refusal).`,
    '',
    'What one request costs the service (CPU of all its threads per request, 400 sent one at a time with nothing else running):',
    '',
    '| request | CPU ms | answer |',
    '|---|---|---|',
    ...r.costPerRequest.map((c) => `| ${c.kind} | ${c.cpuMs.toFixed(2)} | ${c.answers} |`),
    '',
  ].join('\n');
}

await main();

// bench/compare's results: the JSON shape and its Markdown tables (p50 per question and engine,
// warm and cold, and Marginal's p50 against each engine's as "N× faster" or "N× slower").
export interface Timing {
  p50_ms: number;
  runs: number;
}

export interface CompareResult {
  benchmark: string;
  date: string;
  machine: { cpus: number; cpu: string; node: string; load_average_at_start: number[]; load_average_at_end: number[] };
  data: {
    organization_events: number;
    other_organizations: number;
    other_organization_events: number;
    days: number;
    first_day: string;
    lake_write_seconds: number;
  };
  engines: Array<{ label: string; setup: string }>;
  questions: Array<{ name: string; request: string; figures_checked: number; sql_postgres: string }>;
  /** engine label → question name → timing. */
  warm: Record<string, Record<string, Timing>>;
  cold: Record<string, Record<string, Timing>>;
}

const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
/** Marginal's p50 against the engine's, from Marginal's side: "3.2× faster", "45× slower". */
function ratio(engine: number, marginal: number): string {
  const r = engine >= marginal ? engine / marginal : marginal / engine;
  return `${r.toFixed(r >= 10 ? 0 : 1)}× ${engine >= marginal ? 'faster' : 'slower'}`;
}

function table(r: CompareResult, timings: Record<string, Record<string, Timing>>): string {
  const others = r.engines.map((e) => e.label).filter((l) => l !== 'Marginal');
  const head = `| Question | Marginal ms | ${others.map((l) => `${l} ms | Marginal is`).join(' | ')} |`;
  const rule = `|---|--:|${others.map(() => '--:|--:').join('|')}|`;
  const rows = r.questions.map((q) => {
    const m = timings.Marginal![q.name]!.p50_ms;
    const cells = others.map((l) => {
      const t = timings[l]![q.name]!.p50_ms;
      return `${ms(t)} | ${ratio(t, m)}`;
    });
    return `| ${q.name} | ${ms(m)} | ${cells.join(' | ')} |`;
  });
  return [head, rule, ...rows].join('\n');
}

export function renderMarkdown(r: CompareResult): string {
  const runs = (t: Record<string, Record<string, Timing>>) => {
    const all = Object.values(t).flatMap((byQ) => Object.values(byQ).map((x) => x.runs));
    const [min, max] = [Math.min(...all), Math.max(...all)];
    return min === max ? String(min) : `${min}–${max}`;
  };
  return `# bench/compare: Marginal beside DuckDB, PostgreSQL and chDB

\`npm run bench:compare\` (bench/compare/main.ts), ${r.date}. ${r.data.organization_events.toLocaleString('en-US')} events over ${r.data.days} days
from ${r.data.first_day} for the measured organization, ${r.data.other_organization_events.toLocaleString('en-US')} for ${r.data.other_organizations} others beside it
(bench/api's synthetic lake, written in ${r.data.lake_write_seconds} s). ${r.machine.cpus} cpus (${r.machine.cpu}), Node ${r.machine.node}; load average
${r.machine.load_average_at_start.join(' ')} at the start, ${r.machine.load_average_at_end.join(' ')} at the end (the machine is shared).

Every engine returned Marginal's HTTP answers exactly (each cost compared as a decimal, each
event count as an integer) before any figure below was kept. Times are p50 milliseconds; each
"Marginal is" column compares Marginal's p50 with that engine's (faster: Marginal answers sooner). Marginal is
timed end to end over HTTP with the JSON parsed; PostgreSQL and DuckDB from Node through their
clients; chDB inside its Python process.

## Warm (${runs(r.warm)} runs after 2 warm-ups)

${table(r, r.warm)}

## Cold (first query of a fresh process or connection; ${runs(r.cold)} runs each)

Marginal: a freshly started api process (its start not counted). DuckDB: a new in-memory
instance. PostgreSQL: the server restarted, a new connection. chDB: a new Python process. The
operating system's page cache stays warm for all of them.

${table(r, r.cold)}

## Engines

${r.engines.map((e) => `- **${e.label}**: ${e.setup}`).join('\n')}

## Questions

${r.questions.map((q) => `- ${q.name}: \`${q.request}\` (${q.figures_checked} figures checked)`).join('\n')}
`;
}

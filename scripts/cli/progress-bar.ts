// The CLI's progress bar for long work (re-pricing, lake migration): a pure line renderer, and a follower
// that polls a job until it completes, redrawing the bar on stderr (stdout keeps only JSON).

const WIDTH = 30;

/** "[#########·····················]  31.25%  3,125 / 10,000 events" (or another unit of work). */
export function progressLine(percent: number, done: number, total: number, unit = 'events'): string {
  const clamped = Math.max(0, Math.min(100, percent));
  const filled = Math.round((clamped / 100) * WIDTH);
  const count = (n: number) => n.toLocaleString('en-US');
  return `[${'#'.repeat(filled)}${'·'.repeat(WIDTH - filled)}] ${clamped.toFixed(2).padStart(6)}%  ${count(done)} / ${count(total)} ${unit}`;
}

interface JobState {
  status: string;
  progress_percent: number;
  events_repriced: number;
  events_total: number;
}

/** Polls `fetchJob` every `intervalMs` until the job is completed; returns its last state. */
export async function followJob<T extends JobState>(
  fetchJob: () => Promise<T>,
  draw: (line: string) => void,
  intervalMs = 500,
): Promise<T> {
  for (;;) {
    const job = await fetchJob();
    draw(progressLine(job.progress_percent, job.events_repriced, job.events_total));
    if (job.status === 'completed') return job;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

// A background pass run once soon after start and then every interval, never two at once: a pass
// still running when the next is due is skipped, a failure goes to `onError` and the next interval
// tries again, and stop() waits for the pass under way. Timers are unref'd (they never hold the
// process open).
interface PeriodicPassTiming {
  /** Delay of the first pass after start. */
  firstPassAfterMs: number;
  intervalMs: number;
}

export class PeriodicPass {
  private timers: NodeJS.Timeout[] = [];
  private current: Promise<void> | null = null;
  private halted = false;

  constructor(
    private readonly pass: () => Promise<unknown>,
    private readonly onError: (err: unknown) => void,
    private readonly timing: PeriodicPassTiming,
  ) {}

  /** True once stop() was called: a long pass checks it between its steps. */
  get stopped(): boolean {
    return this.halted;
  }

  start(): void {
    if (this.timers.length > 0) return;
    const run = () => {
      if (this.current || this.halted) return;
      this.current = this.pass()
        .then(() => undefined, this.onError)
        .finally(() => (this.current = null));
    };
    this.timers = [setTimeout(run, this.timing.firstPassAfterMs), setInterval(run, this.timing.intervalMs)];
    for (const t of this.timers) t.unref();
  }

  async stop(): Promise<void> {
    this.halted = true;
    for (const t of this.timers) clearTimeout(t);
    await this.current;
  }
}

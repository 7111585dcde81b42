// Budget spend following one lake rewrite of a partition (a re-pricing): the rewrite's transform is
// watched to sum, per changed event counted so far (offset below the partition's count mark),
// new − old cost under its UTC day and keys; just before the lake's commit the sums are written as
// an unapplied revision (naming the files lake's new files; on DuckLake its id goes into the commit),
// and after the commit they are applied and the organization's budgets and end-user margins
// evaluated (spend-revisions.ts has the protocol).
// Events not counted yet (above the mark) are counted later at the cost the lake then holds.
import type { LakeEventRow } from '../../core/lake/events-schema.js';
import { Big } from '../../core/money.js';
import { randomUUID } from 'node:crypto';
import { SpendDeltas, type SpendKeys, type SpendRevision } from './spend-revisions.js';
import { DAY_MS } from '../../core/time.js';

type RowTransform = (row: LakeEventRow) => LakeEventRow | null | Promise<LakeEventRow | null>;

export interface RewriteSpendScope {
  partition: number;
  organizationId: string;
  /** Records below this offset have been counted. */
  countedBelow: number;
}

export interface RewriteSpendSteps {
  keysOf(row: LakeEventRow): SpendKeys;
  /** Writes the revision unapplied; throws to stop the rewrite before its commit. */
  prepare(revision: SpendRevision, lakeFiles: readonly string[]): Promise<void>;
  /** Applies it after the commit and evaluates alerts; never throws. */
  apply(revision: SpendRevision, endUsers: string[]): Promise<void>;
}

export class RewriteSpend {
  /**
   * Differences per subject (the fields that make an event's keys), summed first and spread over
   * the keys once at prepare(): a history re-pricing may change millions of events.
   */
  private readonly subjects = new Map<string, { row: LakeEventRow; difference: Big }>();
  private endUsers: string[] = [];
  private prepared: SpendRevision | null = null;

  constructor(
    private readonly scope: RewriteSpendScope,
    private readonly steps: RewriteSpendSteps,
  ) {}

  /** The rewrite's transform, summing the differences of what it changes. */
  follow(transform: RowTransform): RowTransform {
    const observe = (offset: number, oldCost: string, next: LakeEventRow | null) => {
      if (next !== null && offset < this.scope.countedBelow && next.total_cost !== oldCost) {
        const t = next.event_timestamp.getTime();
        const subject = JSON.stringify([Math.floor(t / DAY_MS), next.user_id, next.agent_id, next.workflow_id, next.metadata]);
        const known = this.subjects.get(subject);
        if (known) known.difference = known.difference.plus(next.total_cost).minus(oldCost);
        else this.subjects.set(subject, { row: next, difference: new Big(next.total_cost).minus(oldCost) });
      }
      return next;
    };
    return (row) => {
      const { kafka_offset: offset, total_cost: oldCost } = row;
      const next = transform(row);
      return next instanceof Promise ? next.then((n) => observe(offset, oldCost, n)) : observe(offset, oldCost, next);
    };
  }

  /**
   * Just before the lake's commit (the files lake's manifest swap bringing in `lakeFiles`): returns
   * the id of the revision written, for a DuckLake commit to record, or null when the rewrite
   * changes no counted spend.
   */
  async prepare(lakeFiles: readonly string[]): Promise<string | null> {
    const sums = new SpendDeltas();
    const endUsers = new Set<string>();
    for (const { row, difference } of this.subjects.values()) {
      const keys = this.steps.keysOf(row);
      sums.add(keys, difference);
      if (keys.endUser !== null && !difference.eq(0)) endUsers.add(keys.endUser);
    }
    this.endUsers = [...endUsers];
    const deltas = sums.byOrganization().get(this.scope.organizationId);
    if (!deltas || deltas.length === 0) return null;
    const revision = { id: randomUUID(), partition: this.scope.partition, organizationId: this.scope.organizationId, deltas };
    await this.steps.prepare(revision, lakeFiles);
    this.prepared = revision;
    return revision.id;
  }

  /** After the rewrite returned (its commit done, or nothing to commit). */
  async commit(): Promise<void> {
    if (this.prepared) await this.steps.apply(this.prepared, this.endUsers);
    this.prepared = null;
  }
}

// The processor's consumer-group member id, kept under $DATA_DIR so that a processor restarted
// after a crash joins as the member its dead incarnation was. The group coordinator then counts
// that member as rejoined at once, instead of waiting out its session (PROCESSOR_SESSION_TIMEOUT_MS)
// before it hands the partitions out again; kafkajs has no static membership (KIP-345), so this is
// our stand-in (its `memberId` option comes from patches/kafkajs+2.2.4.patch). A stale id is
// harmless: the coordinator answers UNKNOWN_MEMBER_ID and kafkajs joins afresh.
// Invariant: an id is reused only when the process that recorded it is this one (a replaced worker
// thread) or is dead on this host; a live processor's id is never taken over.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface GroupMemberStore {
  /** The id to join as first, or null to join as a new member. */
  previous(): string | null;
  /** Records the id the coordinator gave (called on every join). */
  remember(memberId: string): void;
}

interface Stored {
  memberId: string;
  pid: number;
  host: string;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the pid exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The store for `groupId` in `dataDir` (one processor process per data dir). */
export function groupMemberFile(dataDir: string, groupId: string): GroupMemberStore {
  const file = path.join(dataDir, `processor-member.${groupId}.json`);
  return {
    previous() {
      let stored: Stored;
      try {
        stored = JSON.parse(fs.readFileSync(file, 'utf8')) as Stored;
      } catch {
        return null;
      }
      if (typeof stored.memberId !== 'string' || stored.host !== os.hostname()) return null;
      if (stored.pid !== process.pid && isAlive(stored.pid)) return null;
      return stored.memberId;
    },
    remember(memberId) {
      const stored: Stored = { memberId, pid: process.pid, host: os.hostname() };
      fs.mkdirSync(dataDir, { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, JSON.stringify(stored));
      fs.renameSync(tmp, file);
    },
  };
}

// The admin token and the master key (which encrypts signing secrets at rest). The environment
// wins; otherwise they are read from $DATA_DIR/instance-secrets.json, created with fresh random
// values (mode 0600) on first start. Replicas of a distributed deployment must share them, so
// there they are set in the environment.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { generateMasterKey } from './auth/secrets.js';
import type { Config } from './config.js';

export interface InstanceSecrets {
  adminToken: string;
  masterKey: string;
  /** True when this call created the file (first start). */
  created: boolean;
  /** True when this call generated the admin token (neither the environment nor the file had one):
   * the only case in which the start banner prints it. */
  adminTokenGenerated: boolean;
}

export function loadInstanceSecrets(config: Config): InstanceSecrets {
  const file = path.join(config.dataDir, 'instance-secrets.json');
  let stored: { adminToken?: string; masterKey?: string } = {};
  if (fs.existsSync(file)) stored = JSON.parse(fs.readFileSync(file, 'utf8'));
  const adminToken = config.adminToken ?? stored.adminToken;
  const masterKey = config.masterKey ?? stored.masterKey;
  if (adminToken && masterKey) return { adminToken, masterKey, created: false, adminTokenGenerated: false };
  const fresh = {
    adminToken: adminToken ?? `mk_admin_${crypto.randomBytes(24).toString('base64url')}`,
    masterKey: masterKey ?? generateMasterKey(),
  };
  fs.mkdirSync(config.dataDir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(fresh, null, 2), { mode: 0o600 });
  fs.renameSync(tmp, file);
  return { ...fresh, created: true, adminTokenGenerated: !adminToken };
}

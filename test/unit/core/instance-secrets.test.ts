// The admin token is printed only when this start generated it: loadInstanceSecrets says when
// (adminTokenGenerated), and the start banner shows it only then.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../core/config.js';
import { loadInstanceSecrets } from '../../../core/instance-secrets.js';
import { startBanner } from '../../../scripts/start-banner.js';

describe('instance secrets and the start banner', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-secrets-'));
  });
  afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  const bannerFor = (env: Record<string, string>) => {
    const secrets = loadInstanceSecrets(loadConfig({ DATA_DIR: dataDir, ...env }));
    return { secrets, text: startBanner('http://127.0.0.1:1', '1.0', secrets.adminTokenGenerated ? secrets.adminToken : null, dataDir) };
  };

  it('shows a generated token on the first start only', () => {
    const first = bannerFor({});
    expect(first.secrets.adminTokenGenerated).toBe(true);
    expect(first.text).toContain(`First start: the admin token is ${first.secrets.adminToken}`);
    const second = bannerFor({});
    expect(second.secrets.adminToken).toBe(first.secrets.adminToken);
    expect(second.secrets.adminTokenGenerated).toBe(false);
    expect(second.text).not.toContain(first.secrets.adminToken);
  });

  it('never shows a token from the environment, even when the secrets file is created for a new master key', () => {
    const token = 'mk_admin_from_env_0123456789';
    const { secrets, text } = bannerFor({ MARGINAL_ADMIN_TOKEN: token });
    expect(secrets.created).toBe(true);
    expect(secrets.adminToken).toBe(token);
    expect(secrets.adminTokenGenerated).toBe(false);
    expect(text).not.toContain(token);
    expect(text).toContain('Marginal is ready at http://127.0.0.1:1/v1');
  });
});

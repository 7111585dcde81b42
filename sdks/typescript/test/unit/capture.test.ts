import { describe, expect, it } from 'vitest';
import { interceptProperties } from '../../src/providers/capture.js';

describe('interceptProperties', () => {
  it('replaces only the listed own properties; the rest is the real object, methods bound to it', () => {
    class Resource {
      #secret = 41;
      read() {
        return this.#secret + 1;
      }
      create() {
        return 'original';
      }
    }
    const target = new Resource();
    const view = interceptProperties(target, { create: () => () => 'replaced' });
    expect(view.create()).toBe('replaced');
    expect(view.read()).toBe(42); // private fields work: bound to the real object
    expect(String(view)).toBe('[object Object]');
    expect(view.constructor).toBe(Resource);
  });
});

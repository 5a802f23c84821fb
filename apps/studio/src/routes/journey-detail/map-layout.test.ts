import { describe, expect, it } from 'vitest';
import { layoutMap, NODE_HEIGHT } from './map-layout';

describe('layoutMap', () => {
  it('puts each node below every node that leads to it, and the exit beside the first step', () => {
    const nodes = ['trigger', 'welcome', 'check', 'tips', 'end', 'nudge', 'exit'].map((id) => ({ id }));
    const flow = (from: string, to: string) => ({ from, to, anyTime: false });
    const edges = [
      flow('trigger', 'welcome'),
      flow('welcome', 'check'),
      flow('check', 'tips'),
      flow('tips', 'end'),
      flow('check', 'nudge'),
      flow('nudge', 'end'),
      { from: 'trigger', to: 'exit', anyTime: true },
    ];
    const { at, height } = layoutMap(nodes, edges);
    const row = (id: string) => at.get(id)!.y;
    expect(row('trigger')).toBeLessThan(row('welcome'));
    expect(row('exit')).toBe(row('welcome'));
    expect(at.get('exit')!.x).toBeGreaterThan(at.get('welcome')!.x);
    expect(row('tips')).toBe(row('nudge'));
    expect(at.get('tips')!.x).not.toBe(at.get('nudge')!.x);
    expect(row('end')).toBeGreaterThan(row('tips'));
    expect(height).toBeGreaterThanOrEqual(row('end') + NODE_HEIGHT);
  });

  it('ends on a loop instead of relaxing for ever', () => {
    const { at } = layoutMap(
      [{ id: 'a' }, { id: 'b' }],
      [
        { from: 'a', to: 'b', anyTime: false },
        { from: 'b', to: 'a', anyTime: false },
      ],
    );
    expect(at.size).toBe(2);
  });
});

'use strict';
// The order of the four servers in each round: mirrored pairs of rounds, each pair rotated one place further.
const test = require('node:test');
const assert = require('node:assert/strict');
const { COPIES, roundOrder, parseCopy } = require('../schedule');

test('round 0 keeps the starting order and round 1 reverses it', () => {
  assert.deepEqual(roundOrder(0), ['base#1', 'head#1', 'base#2', 'head#2']);
  assert.deepEqual(roundOrder(1), ['head#2', 'base#2', 'head#1', 'base#1']);
});

test('each pair of rounds starts one place further round', () => {
  assert.deepEqual(roundOrder(2), ['head#1', 'base#2', 'head#2', 'base#1']);
  assert.deepEqual(roundOrder(3), ['base#1', 'head#2', 'base#2', 'head#1']);
  assert.deepEqual(roundOrder(8), roundOrder(0));
});

test('every round loads each server once, base and head alternating', () => {
  for (let round = 0; round < 8; round++) {
    const order = roundOrder(round);
    assert.deepEqual([...order].sort(), [...COPIES].sort());
    for (let i = 1; i < order.length; i++) {
      assert.notEqual(parseCopy(order[i]).side, parseCopy(order[i - 1]).side, `round ${round}: ${order}`);
    }
  }
});

test('within each pair of rounds every server has the same mean position', () => {
  for (let pair = 0; pair < 4; pair++) {
    for (const copy of COPIES) {
      const positions = [roundOrder(2 * pair).indexOf(copy), roundOrder(2 * pair + 1).indexOf(copy)];
      assert.equal(positions[0] + positions[1], COPIES.length - 1, `${copy} in pair ${pair}`);
    }
  }
});

test('over eight rounds every server is first twice and last twice', () => {
  const count = (position) => {
    const counts = Object.fromEntries(COPIES.map((copy) => [copy, 0]));
    for (let round = 0; round < 8; round++) counts[roundOrder(round).at(position)]++;
    return counts;
  };
  for (const counts of [count(0), count(-1)]) {
    assert.deepEqual(Object.values(counts), [2, 2, 2, 2], JSON.stringify(counts));
  }
});

test('parseCopy', () => {
  assert.deepEqual(parseCopy('head#2'), { side: 'head', copy: 1 });
  assert.deepEqual(parseCopy('base#1'), { side: 'base', copy: 0 });
});

'use strict';
// The order in which the four servers of a scenario are loaded in each round.
//
// Rounds come in mirrored pairs: round 2k loads the servers in some order and round 2k+1 in the reverse one
// (A B B A), so a drift that is linear in time (a machine warming up, a neighbour starting a build) puts the same
// average position, and so the same share of the drift, on every server within each pair. Each pair starts from
// the starting order rotated by k more places, so over 8 rounds every server is first twice and last twice (the
// first server of a round meets a machine that has just been idle, the last one a warm one). Base and head
// alternate in every order, since rotating or reversing an alternating cycle keeps it alternating.
//
// (Rotating by one every round and reversing the odd rounds would undo the rotation: bases would always take
// the even positions, and a base would be first in every round.)

// The servers of a scenario in their starting order.
const COPIES = ['base#1', 'head#1', 'base#2', 'head#2'];

function roundOrder(round, copies = COPIES) {
  const shift = Math.floor(round / 2) % copies.length;
  const rotated = [...copies.slice(shift), ...copies.slice(0, shift)];
  return round % 2 === 1 ? rotated.reverse() : rotated;
}

// 'base#2' -> { side: 'base', copy: 1 } (copy is 0-based)
function parseCopy(name) {
  const [side, number] = name.split('#');
  return { side, copy: Number(number) - 1 };
}

module.exports = { COPIES, roundOrder, parseCopy };

'use strict';
// What one client kind did against one server: requests (or attempts) sent, answered correctly, errors, notes,
// and the failures that make the soak fail. A verifying client records every error as a failure; a hostile one
// records only what shows a server defect (a connection it should have dropped, an answer it must not give).

class Tally {
  constructor(kind, verifying) {
    this.kind = kind;
    this.verifying = verifying;
    this.sentCount = 0;
    this.correctCount = 0;
    this.errorCount = 0;
    this.counts = new Map();  // note -> count
    this.maxima = new Map();  // note -> largest value seen
    this.failuresByCategory = new Map();  // category -> { count, example }
  }

  sent(n = 1) { this.sentCount += n; }

  correct(n = 1) { this.correctCount += n; }

  /** An error that is expected of a hostile client (a reset, a refused connection); shown in the notes. */
  error(category) {
    this.errorCount++;
    this.note(category);
  }

  /**
   * Something the soak must fail for; counted as an error too. Failures are grouped by category; the first
   * example of each (a detail such as which answer was wrong) is kept.
   */
  failure(category, example = '') {
    this.errorCount++;
    const seen = this.failuresByCategory.get(category);
    if (seen) seen.count++;
    else this.failuresByCategory.set(category, { count: 1, example });
  }

  note(what, n = 1) { this.counts.set(what, (this.counts.get(what) ?? 0) + n); }

  max(what, value) { this.maxima.set(what, Math.max(this.maxima.get(what) ?? value, value)); }

  /** One line per failure category: how often, and its first example. */
  failures() {
    return [...this.failuresByCategory].map(([category, { count, example }]) =>
      `${category}${count > 1 ? ` (${count} times)` : ''}${example ? `; first: ${example}` : ''}`);
  }

  notesText() {
    const counts = [...this.counts].map(([what, count]) => `${what}: ${Number.isInteger(count) ? count : count.toFixed(1)}`);
    const maxima = [...this.maxima].map(([what, value]) => `${what}: ${value}`);
    return [...counts, ...maxima].join('; ');
  }
}

module.exports = { Tally };

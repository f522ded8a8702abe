'use strict';
// The progress line on stderr: scenario, round and server, rewritten in place on a terminal and one line per
// step elsewhere (CI logs). Messages (builds, skips) go through note() so they do not collide with the line.
class Progress {
  constructor(stream = process.stderr) {
    this.stream = stream;
    this.inPlace = Boolean(stream.isTTY);
    this.showing = false;
  }

  // "[2/4] http/headers  round 3/5  head#2 (2 of 4)"
  step({ scenarioIndex, scenarioCount, scenario, round, rounds, copy, position }) {
    const where = round === null ? 'warm-up' : `round ${round + 1}/${rounds}`;
    const text = `[${scenarioIndex + 1}/${scenarioCount}] ${scenario}  ${where}  ${copy} (${position + 1} of 4)`;
    if (this.inPlace) {
      this.stream.write(`\r\x1b[K${text}`);
      this.showing = true;
    } else {
      this.stream.write(`${text}\n`);
    }
  }

  note(text) {
    this.clear();
    this.stream.write(`${text}\n`);
  }

  clear() {
    if (this.showing) this.stream.write('\r\x1b[K');
    this.showing = false;
  }
}

module.exports = { Progress };

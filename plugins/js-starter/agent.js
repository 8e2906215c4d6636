// A starter agent program in JavaScript (node) for arena's line protocol, version 1 (docs/protocol.md).
//
// One JSON object per line on stdin, one answer per request on stdout.  The rule: play the last legal
// action; in Lovat's keep (legal is empty: a rule describes the choice) keep the first subset of the
// dealt cards, in order, whose levels sum to level_sum with min_size..max_size cards (a card's level is
// the digit after the "L" of its id, "L2-17").  console.error goes to the seat's log.
"use strict";
const readline = require("readline");

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

function findKeep(cards, target, least, most) {
  const levels = cards.map((card) => Number(card[1]));
  const chosen = [];
  function search(i, total) {
    if (total === target && chosen.length >= least && chosen.length <= most) return true;
    if (i === cards.length || total > target || chosen.length >= most) return false;
    chosen.push(cards[i]);
    if (search(i + 1, total + levels[i])) return true;
    chosen.pop();
    return search(i + 1, total);
  }
  return search(0, 0) ? chosen : [];
}

function decide(request) {
  if (request.legal.length > 0) return request.legal[request.legal.length - 1];
  const seen = request.observation;
  const keep = findKeep(seen.dealt, seen.level_sum, seen.min_size, seen.max_size);
  if (keep.length === 0) console.error(`no keep found among ${seen.dealt.length} cards`);
  return keep;
}

const input = readline.createInterface({ input: process.stdin, terminal: false });
input.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "hello") {
    send({ type: "ready" });
  } else if (message.type === "act") {
    send({ type: "action", id: message.id, action: decide(message) });
  } else if (message.type === "result") {
    send({ type: "done" });
    input.close();
  }
});

// The chat page's script (examples/js/demo_chat.html, served at /assets/chat.js). It reads the room and the name
// from the page's own URL (/chat?room=..&name=..): without both it shows the page's form that asks for them (which
// loads /chat again with them); with both it joins over the WebSocket /chat/ws?room=..&name=.. and shows the room's
// lines. With Redis, the room's recent lines come first ({"event":"history"}), and every line is stamped
// "<epoch>:<offset>:": each is shown once, in order.
'use strict';
const query = new URLSearchParams(location.search);
const room = query.get('room');
const name = query.get('name');
const $ = (id) => document.getElementById(id);

if (!room || !name) {
  $('join').hidden = false;
  if (name) $('join').elements.name.value = name;
  if (room) $('join').elements.room.value = room;
} else {
  $('chat').hidden = false;
  $('room').textContent = room;
  $('name').textContent = name;
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const socket = new WebSocket(`${scheme}//${location.host}/chat/ws?${new URLSearchParams({ room, name })}`);

  const shown = new Set();  // "<epoch>:<offset>" of the stamped lines on the log
  /**
   * Puts one line on the log: "12:34 name: text", or "12:34 name joined (2 online)". A stamped line goes before
   * the first of its epoch with a greater offset (history can come after live lines), and only once.
   */
  const show = (message, stamp) => {
    if (stamp) {
      if (shown.has(`${stamp.epoch}:${stamp.offset}`)) return;
      shown.add(`${stamp.epoch}:${stamp.offset}`);
    }
    const line = document.createElement('li');
    const time = document.createElement('time');
    time.textContent = new Date(message.at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    line.append(time);
    if (message.event) {
      line.className = 'event';
      line.append(`${message.name} ${message.event} (${message.online} online)`);
    } else {
      const who = document.createElement('b');
      who.textContent = `${message.name}: `;
      line.append(who, message.text);
    }
    const log = $('log');
    const atBottom = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
    let after = null;
    if (stamp) {
      line.dataset.epoch = stamp.epoch;
      line.dataset.offset = String(stamp.offset);
      after = [...log.children].find((other) => other.dataset.epoch === stamp.epoch &&
        Number(other.dataset.offset) > stamp.offset) ?? null;
    }
    log.insertBefore(line, after);
    if (atBottom) log.scrollTop = log.scrollHeight;
  };
  /** Shows data: a line's JSON, or "<epoch>:<offset>:" and its JSON. */
  const receive = (data) => {
    const stamped = /^([^:{]*):(\d+):/.exec(data);
    if (!stamped) return show(JSON.parse(data));
    show(JSON.parse(data.slice(stamped[0].length)), { epoch: stamped[1], offset: Number(stamped[2]) });
  };

  socket.onopen = () => { $('status').textContent = 'connected'; };
  socket.onmessage = (event) => {
    if (event.data.startsWith('{"event":"history"')) JSON.parse(event.data).lines.forEach(receive);
    else receive(event.data);
  };
  // A refused name or room (400) never opens: the browser reports 1006 without a reason.
  socket.onclose = (event) => {
    $('status').textContent = `disconnected (${event.code}${event.reason ? ` ${event.reason}` : ''})`;
  };
  $('say').onsubmit = (event) => {
    event.preventDefault();
    if (socket.readyState !== WebSocket.OPEN || $('text').value === '') return;
    socket.send($('text').value);
    $('text').value = '';
  };
}

// The landing page's script (examples/js/demo_home.html, served at /assets/home.js): fills the counters' cells,
// whose ids are the fields of /stats, with what /stats/ws pushes once a second. The list of examples is in the
// page as served (demo.js writes it in); nothing here touches it.
'use strict';
const $ = (id) => document.getElementById(id);
const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
const socket = new WebSocket(`${scheme}//${location.host}/stats/ws`);
socket.onopen = () => { $('status').textContent = ''; };
socket.onmessage = (event) => {
  const stats = JSON.parse(event.data);
  for (const key of ['connections', 'requestsPerSecond', 'messagesPerSecond', 'deliveries', 'link', 'fromOthers']) {
    $(key).textContent = typeof stats[key] === 'number' ? stats[key].toLocaleString('en') : stats[key];
  }
};
socket.onclose = () => { $('status').textContent = '(disconnected)'; };

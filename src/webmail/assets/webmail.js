// The webmail's page script: refresh, address autocomplete, the framed send and the compose page's uploads. Plain script, no eval:
// server commands arrive as Roundcube's `this.name(args);` lines and only the ones below are run.
'use strict';

(function () {
  const env = document.body.dataset;
  const base = '/webmail/';

  function showMessage(text, type) {
    const stack = document.getElementById('messagestack');
    if (!stack) return;
    const box = document.createElement('div');
    box.className = 'notice ' + (type || 'notice');
    box.textContent = text;
    stack.replaceChildren(box);
  }

  function setUnreadCount(folder, count) {
    const badge = document.querySelector('.unreadcount[data-folder="' + CSS.escape(folder) + '"]');
    if (badge) badge.textContent = count > 0 ? String(count) : '';
    if (folder === 'INBOX') document.title = (count > 0 ? '(' + count + ') ' : '') + document.title.replace(/^\(\d+\) /, '');
  }

  function link(href, text) {
    const a = document.createElement('a');
    a.href = href;
    a.textContent = text;
    return a;
  }

  // The server writes dates in UTC; a reader wants them in the browser's zone, the zone named in full.
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const listFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  const fullFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'long' });

  function timeElement(iso, text) {
    const time = document.createElement('time');
    time.dateTime = iso;
    time.textContent = text;
    return time;
  }

  function localTimes(root) {
    for (const time of root.querySelectorAll('time[datetime]')) {
      const date = new Date(time.dateTime);
      if (Number.isNaN(date.getTime())) continue;
      time.textContent = (time.closest('#messagelist') ? listFormat : fullFormat).format(date);
      time.title = fullFormat.format(date);
    }
  }

  // The reply's quote header (and a forward's Date line) is written by the server: it needs the zone to date it as the reader would.
  function zoneOnReplyLinks() {
    for (const link of document.querySelectorAll('a[href*="_reply_uid="], a[href*="_forward_uid="]')) link.href += '&_tz=' + encodeURIComponent(zone);
  }

  function addMessageRow(uid, cols, flags) {
    const body = document.querySelector('#messagelist tbody');
    if (!body || flags.mbox !== env.mbox || body.querySelector('tr[data-uid="' + uid + '"]')) return;
    const row = document.createElement('tr');
    row.dataset.uid = String(uid);
    if (!flags.seen) row.classList.add('unread');
    if (flags.flagged) row.classList.add('flagged');
    // The checkbox belongs to the list's selection form, as the server's rows do.
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.name = '_uid';
    box.value = String(uid);
    box.setAttribute('form', 'list-form');
    box.setAttribute('aria-label', 'Select: ' + (cols.subject || '(no subject)'));
    const cells = [
      ['select', box],
      ['fromto', document.createTextNode(cols.fromto)],
      ['subject', link(base + '?_task=mail&_action=show&_mbox=' + encodeURIComponent(flags.mbox) + '&_uid=' + uid, cols.subject || '(no subject)')],
      ['date', timeElement(cols.datetime, cols.date)],
    ];
    for (const [name, content] of cells) {
      const cell = document.createElement('td');
      cell.className = name;
      cell.append(content);
      row.append(cell);
    }
    body.prepend(row);
    localTimes(row);
    const empty = document.getElementById('empty-list');
    if (empty) empty.hidden = true;
  }

  // The mark buttons toggle: after "unread" the offer is "read", after "flagged" it is "unflagged", and back.
  const MARK_TOGGLES = {
    unread: ['read', 'Mark as read'],
    read: ['unread', 'Mark as unread'],
    flagged: ['unflagged', 'Unflag'],
    unflagged: ['flagged', 'Flag'],
  };

  function setMessageFlag(uid, flag) {
    const button = document.querySelector('.mark-button[data-uid="' + uid + '"][data-flag="' + flag + '"]');
    if (!button) return;
    const next = MARK_TOGGLES[flag];
    button.dataset.flag = next[0];
    button.textContent = next[1];
    showMessage(
      flag === 'unread' ? 'Marked as unread.' : flag === 'read' ? 'Marked as read.' : flag === 'flagged' ? 'Flagged.' : 'Flag removed.',
      'confirmation',
    );
  }

  function startMarkButtons() {
    for (const button of document.querySelectorAll('.mark-button')) {
      button.hidden = false;
      button.addEventListener('click', function () {
        request('mark', { _uid: button.dataset.uid, _mbox: button.dataset.mbox, _flag: button.dataset.flag }).catch(function () {
          showMessage('Connection Error (Failed to reach the server)!', 'error');
        });
      });
    }
  }

  const commands = {
    set_unread_count: setUnreadCount,
    set_message_flag: setMessageFlag,
    add_message_row: addMessageRow,
    display_message: showMessage,
    session_error: function (url) {
      window.location.href = url;
    },
    ksearch_query_results: function (results, search, reqid) {
      autocomplete.show(results, search, reqid);
    },
  };

  // `local` adds the commands of one part of the page (the compose page's attachment list) for this answer.
  function runCommands(exec, local) {
    for (const line of (exec || '').split('\n')) {
      const call = /^this\.([a-z0-9_]+)\((.*)\);$/.exec(line);
      if (!call) continue;
      const known = local && Object.prototype.hasOwnProperty.call(local, call[1]) ? local : commands;
      if (Object.prototype.hasOwnProperty.call(known, call[1])) known[call[1]].apply(null, JSON.parse('[' + call[2] + ']'));
    }
  }

  // Roundcube's AJAX: POST with the request token in X-Roundcube-Request; a 403 means the page is stale.
  async function request(action, params, local) {
    const body = new URLSearchParams(Object.assign({ _unlock: '0' }, params));
    const response = await fetch(base + '?_task=mail&_action=' + action, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'X-Roundcube-Request': env.requestToken || '', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: body,
    });
    if (!response.ok) {
      showMessage('Server Error! (' + (response.statusText || response.status) + ')', 'error');
      setTimeout(function () {
        window.location.reload();
      }, 2000);
      return;
    }
    runCommands((await response.json()).exec, local);
  }

  function startRefresh() {
    if (!env.mbox) return;
    const refresh = function () {
      const uids = Array.from(document.querySelectorAll('#messagelist tbody tr'), function (row) {
        return row.dataset.uid;
      });
      return request('refresh', { _mbox: env.mbox, _list: '1', _folderlist: '1', _uids: uids.join(',') }).catch(function () {
        showMessage('Connection Error (Failed to reach the server)!', 'error');
      });
    };
    const seconds = Math.max(1, Number(env.refreshSeconds) || 60);
    setInterval(refresh, seconds * 1000);
    const button = document.getElementById('refresh-button');
    if (button) button.addEventListener('click', refresh);
  }

  const autocomplete = window.WebmailAutocomplete ? window.WebmailAutocomplete(request) : { show: function () {} };

  function startFramedSend() {
    const form = document.getElementById('compose-form');
    const frame = document.getElementById('savetarget');
    if (!form || !frame) return;
    const button = document.getElementById('send-button');
    form.target = 'savetarget';
    let sending = false;
    form.addEventListener('submit', function () {
      const unlock = 'loading' + Date.now();
      form.action = base + '?_task=mail&_action=send&_unlock=' + unlock + '&_framed=1';
      sending = true;
      button.disabled = true;
      showMessage('Sending message...', 'loading');
    });
    frame.addEventListener('load', function () {
      if (!sending) return;
      sending = false;
      button.disabled = false;
      const doc = frame.contentDocument;
      const result = doc && doc.getElementById('frame-result');
      if (!result) {
        const title = doc && doc.querySelector('.error-title');
        showMessage(title ? title.textContent : 'Connection Error (Failed to reach the server)!', 'error');
        return;
      }
      showMessage(result.dataset.message, result.dataset.type);
      if (result.dataset.next) window.location.href = result.dataset.next;
    });
  }

  localTimes(document);
  zoneOnReplyLinks();
  startRefresh();
  startFramedSend();
  startMarkButtons();
  if (window.WebmailPreviewPane) window.WebmailPreviewPane(setUnreadCount);
  if (window.WebmailComposeAttachments) window.WebmailComposeAttachments({ request: request, runCommands: runCommands, showMessage: showMessage });
})();

// The message next to the list on wide screens, as Roundcube Elastic's three columns: folders, list and
// message side by side when the window is wider than 1200 px ('large' in skins/elastic/ui.js 1636-1651,
// 1840-1850). A subject then opens in the pane's frame (Roundcube's `_action=preview&_framed=1` into
// `messagecontframe`, program/js/app.js 2709-2751) and the list stays; narrower, or without this script,
// the subject's link opens the message as a page of its own, with a link back to the list.
'use strict';

window.WebmailPreviewPane = function (setUnreadCount) {
  const pane = document.getElementById('preview-pane');
  const list = document.querySelector('#messagelist tbody');
  const frame = document.getElementById('messagecontframe');
  if (!pane || !list || !frame) return;
  const wide = window.matchMedia('(min-width: 1201px)');
  const showPane = function () {
    pane.hidden = !wide.matches;
  };
  wide.addEventListener('change', showPane);
  showPane();

  function open(link) {
    for (const row of list.querySelectorAll('tr.selected')) {
      row.classList.remove('selected');
      row.querySelector('td.subject a').removeAttribute('aria-current');
    }
    link.closest('tr').classList.add('selected');
    link.setAttribute('aria-current', 'true');
    const url = new URL(link.href);
    url.searchParams.set('_action', 'preview');
    url.searchParams.set('_framed', '1');
    document.getElementById('preview-empty').hidden = true;
    frame.hidden = false;
    // replace(): the browser's Back leaves the list, not each message read in the pane.
    frame.contentWindow.location.replace(url.href);
  }

  list.addEventListener('click', function (event) {
    const link = event.target.closest('td.subject a');
    if (!link || pane.hidden || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    open(link);
  });

  // Up and down move through the list, as Roundcube's list widget does; with the pane shown, each opens there.
  list.addEventListener('keydown', function (event) {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    const link = event.target.closest('td.subject a');
    if (!link) return;
    const row = link.closest('tr');
    const next = event.key === 'ArrowDown' ? row.nextElementSibling : row.previousElementSibling;
    const nextLink = next && next.querySelector('td.subject a');
    if (!nextLink) return;
    event.preventDefault();
    nextLink.focus();
    if (!pane.hidden) open(nextLink);
  });

  // The preview marked the message read: its row and the folder's count say so (Roundcube's set_unread_message).
  frame.addEventListener('load', function () {
    const data = frame.contentDocument && frame.contentDocument.body ? frame.contentDocument.body.dataset : {};
    if (!data.previewUid || data.previewMbox !== document.body.dataset.mbox) return;
    const row = list.querySelector('tr[data-uid="' + CSS.escape(data.previewUid) + '"]');
    if (row && row.classList.contains('unread')) {
      row.classList.remove('unread');
      const unreadNote = row.querySelector('td.subject > .visually-hidden');
      if (unreadNote) unreadNote.remove();
    }
    setUnreadCount(data.previewMbox, Number(data.previewUnread) || 0);
  });
};

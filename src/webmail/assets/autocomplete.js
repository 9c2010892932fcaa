// Recipient suggestions for the compose form (Roundcube's ksearch): one POST autocomplete per pause in
// typing, answered by ksearch_query_results; a pick replaces the address being typed.
'use strict';

window.WebmailAutocomplete = function (request) {
  const list = document.getElementById('autocomplete-list');
  const fields = ['_to', '_cc']
    .map(function (id) {
      return document.getElementById(id);
    })
    .filter(Boolean);
  if (!list || fields.length === 0) return { show: function () {} };
  let active = null;
  let timer = 0;
  let pending = '';
  let results = [];
  let selected = -1;

  function typed(input) {
    const parts = input.value.split(/[,;]/);
    return parts[parts.length - 1].trim();
  }

  function hide() {
    list.hidden = true;
    list.replaceChildren();
    results = [];
    selected = -1;
  }

  function pick(email) {
    const value = active.value;
    const cut = Math.max(value.lastIndexOf(','), value.lastIndexOf(';'));
    active.value = (cut >= 0 ? value.slice(0, cut + 1) + ' ' : '') + email + ', ';
    hide();
    active.focus();
  }

  function highlight(index) {
    selected = index;
    Array.from(list.children).forEach(function (item, i) {
      item.setAttribute('aria-selected', String(i === index));
    });
  }

  function show(found, search, reqid) {
    if (!active || reqid !== pending || typed(active).toLowerCase() !== search) return;
    hide();
    results = found;
    for (const result of found) {
      const item = document.createElement('li');
      item.setAttribute('role', 'option');
      item.textContent = result.name;
      item.addEventListener('mousedown', function (event) {
        event.preventDefault();
        pick(result.fields.email);
      });
      list.append(item);
    }
    active.parentElement.append(list);
    list.hidden = found.length === 0;
    if (found.length > 0) highlight(0);
  }

  function lookUp() {
    const search = typed(active);
    if (search === '') return hide();
    pending = String(Date.now());
    request('autocomplete', { _search: search, _reqid: pending, _source: '' }).catch(hide);
  }

  for (const field of fields) {
    field.addEventListener('input', function () {
      active = field;
      clearTimeout(timer);
      timer = setTimeout(lookUp, 200);
    });
    field.addEventListener('keydown', function (event) {
      if (list.hidden || active !== field) return;
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        const step = event.key === 'ArrowDown' ? 1 : results.length - 1;
        highlight((selected + step) % results.length);
      } else if ((event.key === 'Enter' || event.key === 'Tab') && selected >= 0) {
        event.preventDefault();
        pick(results[selected].fields.email);
      } else if (event.key === 'Escape') {
        hide();
      }
    });
    field.addEventListener('blur', function () {
      setTimeout(hide, 150);
    });
  }
  return { show: show };
};

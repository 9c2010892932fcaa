// The compose page's uploads, as Roundcube's compose does them (program/js/app.js: `upload_file` 5660-5678
// and `file_upload` 10076-10163 send the chosen files at once as FormData with the request token in the
// X-Roundcube-Request header; `add2attachment_list` 5681-5734 shows an "uploading" entry that the server's
// answer replaces; `remove_attachment` 5741-5747 posts `remove-attachment` and the answer's
// `remove_from_attachment_list` takes the entry away). The page never reloads, so what was typed stays.
// Without this script the upload and remove forms post and come back to the compose page.
'use strict';

window.WebmailComposeAttachments = function (api) {
  const list = document.getElementById('attachment-list');
  const form = document.getElementById('upload-form');
  const input = document.getElementById('upload-input');
  if (!list || !form || !input) return;
  const composeId = document.body.dataset.composeId || '';
  const token = document.body.dataset.requestToken || '';
  const sendButtons = document.querySelectorAll('#send-button, #savedraft-button');
  let uploading = 0;

  // The files go as soon as they are chosen; the Attach button is for the page without script.
  document.getElementById('upload-button').hidden = true;

  function hidden(name, value) {
    const field = document.createElement('input');
    field.type = 'hidden';
    field.name = name;
    field.value = value;
    return field;
  }

  // The same entry the server writes (compose-attachments.ts), so a reload shows what the script showed.
  function entry(file) {
    const item = document.createElement('li');
    item.id = file.id;
    const name = document.createElement('span');
    name.className = 'attachment-name';
    name.textContent = file.name;
    const size = document.createElement('span');
    size.className = 'attachment-size';
    size.textContent = '(' + file.size + ')';
    const remove = document.createElement('form');
    remove.className = 'remove-attachment';
    remove.method = 'post';
    remove.action = '/webmail/?_task=mail&_action=remove-attachment';
    remove.append(hidden('_token', token), hidden('_id', composeId), hidden('_file', file.id));
    const button = document.createElement('button');
    button.type = 'submit';
    button.className = 'secondary';
    button.textContent = 'Remove';
    button.setAttribute('aria-label', 'Remove ' + file.name);
    remove.append(button);
    item.append(name, ' ', size, remove);
    return item;
  }

  const commands = {
    add2attachment_list: function (file, uploadId) {
      const indicator = uploadId && document.getElementById(uploadId);
      if (indicator) indicator.replaceWith(entry(file));
      else list.append(entry(file));
    },
    remove_from_attachment_list: function (name) {
      const item = name && document.getElementById(name);
      if (item && list.contains(item)) item.remove();
    },
  };

  function uploadingEntry(uploadId, label) {
    const item = document.createElement('li');
    item.id = uploadId;
    item.className = 'uploading';
    const name = document.createElement('span');
    name.className = 'attachment-name';
    name.textContent = label;
    const progress = document.createElement('progress');
    progress.max = 100;
    progress.value = 0;
    progress.setAttribute('aria-label', 'Uploading ' + label);
    item.append(name, ' ', progress);
    list.append(item);
    return progress;
  }

  function busy(delta) {
    uploading += delta;
    // Roundcube refuses to send while an upload runs ("Please wait until all uploads finished"); so do we.
    for (const button of sendButtons) button.disabled = uploading > 0;
  }

  function upload(files) {
    if (!files.length) return;
    const data = new FormData();
    for (const file of files) data.append('_attachments[]', file);
    const uploadId = 'upload' + Date.now() + Math.floor(Math.random() * 1000);
    const progress = uploadingEntry(uploadId, files.length > 1 ? 'Uploading ' + files.length + ' files...' : files[0].name);
    const xhr = new XMLHttpRequest();
    const url = '/webmail/?_task=mail&_action=upload&_id=' + encodeURIComponent(composeId) + '&_uploadid=' + uploadId + '&_unlock=0';
    xhr.open('POST', url);
    xhr.setRequestHeader('X-Roundcube-Request', token);
    xhr.responseType = 'text';
    xhr.upload.addEventListener('progress', function (event) {
      if (event.lengthComputable) progress.value = Math.round((event.loaded / event.total) * 100);
    });
    busy(1);
    xhr.addEventListener('loadend', function () {
      busy(-1);
      let answer;
      try {
        answer = JSON.parse(xhr.responseText);
      } catch {
        answer = null;
      }
      // A refusal (the 413 of a limit) is JSON too: its display_message says why, in the live region.
      if (answer && typeof answer.exec === 'string') api.runCommands(answer.exec, commands);
      commands.remove_from_attachment_list(uploadId);
      if (!answer) api.showMessage(xhr.status === 403 ? 'Request security check failed' : 'Connection Error (Failed to reach the server)!', 'error');
      else if (xhr.status === 200) api.showMessage(files.length > 1 ? files.length + ' files attached.' : files[0].name + ' attached.', 'confirmation');
    });
    xhr.send(data);
  }

  input.addEventListener('change', function () {
    const files = Array.from(input.files || []);
    input.value = '';
    upload(files);
  });

  list.addEventListener('submit', function (event) {
    const remove = event.target.closest('form.remove-attachment');
    if (!remove) return;
    event.preventDefault();
    const file = remove.elements._file.value;
    api.request('remove-attachment', { _id: composeId, _file: file }, commands).catch(function () {
      api.showMessage('Connection Error (Failed to reach the server)!', 'error');
    });
  });
};

"""A MongoDB *stand-in* for tests, not a MongoDB server.

No MongoDB server can run on the development machines or in CI, so this speaks MongoDB's wire
protocol (Debian's python3-mockupdb) and answers the few commands the MongoDB adapters send
from an in-memory mongomock database (python3-mongomock). It lets the adapter's real queries,
updates, upserts and duplicate-key handling run in CI; it proves nothing about a real server's
behaviour beyond what mongomock imitates. It serves a replica set of three members (a primary, a
secondary and an arbiter, mongo-stand-in-replica-set.py) on three ports, prints them on one line,
then serves until killed.
"""
import datetime
import importlib.util
import os
import sys
import threading
import time

import bson
from bson.int64 import Int64
from mockupdb import Matcher, MockupDB
from pymongo import ReturnDocument
from pymongo.errors import DuplicateKeyError

_spec = importlib.util.spec_from_file_location('replica_set', __file__.replace('mongo-stand-in.py', 'mongo-stand-in-replica-set.py'))
replica_set = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(replica_set)

# The driver reads a cursor id only as a 64-bit integer; 0 means every result is in the first batch.
NO_MORE = Int64(0)
lock = threading.RLock()
members = replica_set.ReplicaSet(lock)

HELLO = {
    'helloOk': True,
    'minWireVersion': 0,
    'maxWireVersion': 17,
    'maxBsonObjectSize': 16 * 1024 * 1024,
    'maxMessageSizeBytes': 48000000,
    'maxWriteBatchSize': 100000,
    'connectionId': 1,
}
# A replica-set member supports sessions (localLogicalSessionTimeoutMinutes, 30 by default,
# mongo/src/mongo/db/logical_session_id.h); without it the driver sends no txnNumber and so never
# retries a write. Only with --sessions: the older process specs' first request, with sessions, missed
# the rate limiter's 40 ms count deadline on a loaded machine (cause not found yet).
if '--sessions' in sys.argv:
    HELLO['logicalSessionTimeoutMinutes'] = 30


def write_error(index, error):
    return {'index': index, 'code': 11000, 'errmsg': str(error)}


# BSONObjMaxUserSize, 16 MiB (mongodb/mongo src/mongo/bson/util/builder.h). mongod refuses a larger
# document with BSONObjectTooLarge (10334): on insert "object to insert too large"
# (src/mongo/db/ops/insert.cpp, fixDocumentForInsert), on update "Resulting document after update is
# larger than 16777216" (src/mongo/db/exec/update_stage.cpp), and writes nothing of it.
BSON_OBJ_MAX_USER_SIZE = 16 * 1024 * 1024


def too_large(index, message):
    return {'index': index, 'code': 10334, 'errmsg': message}


def oversized(doc):
    return doc is not None and len(bson.encode(doc)) > BSON_OBJ_MAX_USER_SIZE


def do_insert(db, cmd):
    collection = db[cmd['insert']]
    errors, n = [], 0
    for index, doc in enumerate(cmd.get('documents', [])):
        if oversized(doc):
            errors.append(too_large(index, f'object to insert too large. size in bytes: {len(bson.encode(doc))}, max size: {BSON_OBJ_MAX_USER_SIZE}'))
            continue
        try:
            collection.insert_one(doc)
            n += 1
        except DuplicateKeyError as error:
            errors.append(write_error(index, error))
    return {'n': n, **({'writeErrors': errors} if errors else {})}


def do_update(db, cmd):
    collection = db[cmd['update']]
    errors, upserted, matched, modified = [], [], 0, 0
    for index, spec in enumerate(cmd.get('updates', [])):
        update = collection.update_many if spec.get('multi') else collection.update_one
        before = list(collection.find(spec['q'])) if spec.get('multi') else [d for d in [collection.find_one(spec['q'])] if d]
        try:
            result = update(spec['q'], spec['u'], upsert=bool(spec.get('upsert')))
        except DuplicateKeyError as error:
            errors.append(write_error(index, error))
            continue
        ids = [d['_id'] for d in before] + ([] if result.upserted_id is None else [result.upserted_id])
        if any(oversized(collection.find_one({'_id': i})) for i in ids):
            for old in before:
                collection.replace_one({'_id': old['_id']}, old)
            if result.upserted_id is not None:
                collection.delete_one({'_id': result.upserted_id})
            errors.append(too_large(index, f'Resulting document after update is larger than {BSON_OBJ_MAX_USER_SIZE}'))
            continue
        matched += result.matched_count
        modified += result.modified_count
        if result.upserted_id is not None:
            upserted.append({'index': index, '_id': result.upserted_id})
    reply = {'n': matched + len(upserted), 'nModified': modified}
    if upserted:
        reply['upserted'] = upserted
    if errors:
        reply['writeErrors'] = errors
    return reply


def do_delete(db, cmd):
    collection = db[cmd['delete']]
    n = 0
    for spec in cmd.get('deletes', []):
        delete = collection.delete_one if spec.get('limit') == 1 else collection.delete_many
        n += delete(spec['q']).deleted_count
    return {'n': n}


def do_find(db, cmd):
    collection = db[cmd['find']]
    cursor = collection.find(cmd.get('filter', {}), projection=cmd.get('projection') or None)
    if cmd.get('sort'):
        cursor = cursor.sort(list(cmd['sort'].items()))
    if cmd.get('skip'):
        cursor = cursor.skip(cmd['skip'])
    if cmd.get('limit'):
        cursor = cursor.limit(abs(cmd['limit']))
    return {'cursor': {'id': NO_MORE, 'ns': f"{db.name}.{cmd['find']}", 'firstBatch': list(cursor)}}


def do_aggregate(db, cmd):
    # mongomock runs the pipeline; countDocuments sends [$match, ($skip/$limit), $group {n: {$sum: 1}}].
    batch = list(db[cmd['aggregate']].aggregate(cmd.get('pipeline', [])))
    return {'cursor': {'id': NO_MORE, 'ns': f"{db.name}.{cmd['aggregate']}", 'firstBatch': batch}}


def do_find_and_modify(db, cmd):
    collection = db[cmd['findAndModify']]
    before = collection.find_one(cmd.get('query', {}))
    value = collection.find_one_and_update(
        cmd.get('query', {}), cmd['update'], upsert=bool(cmd.get('upsert')),
        return_document=ReturnDocument.AFTER if cmd.get('new') else ReturnDocument.BEFORE)
    return {'value': value, 'lastErrorObject': {'n': 1 if value or before else 0, 'updatedExisting': before is not None}}


def do_create_indexes(db, cmd):
    collection = db[cmd['createIndexes']]
    for index in cmd.get('indexes', []):
        collection.create_index(list(index['key'].items()), name=index.get('name'), unique=bool(index.get('unique')))
    return {'numIndexesBefore': 1, 'numIndexesAfter': 1 + len(cmd.get('indexes', []))}


def do_list_collections(db, cmd):
    names = db.list_collection_names()
    wanted = (cmd.get('filter') or {}).get('name')
    batch = [{'name': name, 'type': 'collection'} for name in names if wanted is None or name == wanted]
    return {'cursor': {'id': NO_MORE, 'ns': f'{db.name}.$cmd.listCollections', 'firstBatch': batch}}


def do_drop(db, cmd):
    if cmd['drop'] not in db.list_collection_names():
        return {'ok': 0, 'errmsg': 'ns not found', 'code': 26, 'codeName': 'NamespaceNotFound'}
    db.drop_collection(cmd['drop'])
    return {}


COMMANDS = {
    'insert': do_insert,
    'update': do_update,
    'delete': do_delete,
    'find': do_find,
    'aggregate': do_aggregate,
    'findAndModify': do_find_and_modify,
    'createIndexes': do_create_indexes,
    'listCollections': do_list_collections,
    'drop': do_drop,
    'dropDatabase': lambda db, cmd: db.client.drop_database(db.name) or {},
}


# mongod's `failCommand` fail point (test commands enabled; src/mongo/db/commands.cpp,
# CommandHelpers::evaluateFailCommandFailPoint, and service_entry_point_common.cpp), one per member:
# while it is on, a command it names first waits blockTimeMS when blockConnection is set, then closes
# the connection without answering when closeConnection is set, else answers {ok: 0, code, errmsg,
# errorLabels} when errorCode is set, else runs and has writeConcernError appended to its answer.
# Tests use it for the answers of a node that shuts down or loses its primary role, with the codes of
# src/mongo/base/error_codes.yml: 11600 InterruptedAtShutdown and 91 ShutdownInProgress
# (ShutdownError), 10107 NotWritablePrimary, 189 PrimarySteppedDown and 11602
# InterruptedDueToReplStateChange (NotPrimaryError), all RetriableError; and for a hung primary.
fail_points = [{'remaining': 0, 'data': {}, 'entered': 0} for _ in members.roles]
# mongod's hangBeforeWaitingForWriteConcern (mongo/src/mongo/db/write_concern.cpp, waitForWriteConcern):
# a write that has been applied pauses before its write-concern wait while the fail point is set. Tests
# wait for it (waitForFailPoint) to know a write is applied on the primary alone, then fail over.
# data.collections (the stand-in's own addition; mongod pauses every write) limits it to writes of those
# collections, so a test knows which write it holds.
hang_before_wait = [{'on': False, 'entered': 0, 'collections': None} for _ in members.roles]


def hangs_before_wait(member, name, cmd):
    hanging = hang_before_wait[member]
    return hanging['on'] and (hanging['collections'] is None or cmd.get(name) in hanging['collections'])


def configure_fail_point(member, cmd):
    name, mode = cmd['configureFailPoint'], cmd.get('mode')
    if name == 'stopReplProducer':
        members.stop_replication(mode != 'off')
        return {'ok': 1}
    if name == 'hangBeforeWaitingForWriteConcern':
        hanging = hang_before_wait[member]
        hanging.update(on=mode != 'off', collections=(cmd.get('data') or {}).get('collections'))
        members.changed.notify_all()
        return {'ok': 1, 'count': hanging['entered']}
    if name != 'failCommand':
        return {'ok': 0, 'errmsg': f"the stand-in has no fail point {name}", 'code': 2, 'codeName': 'BadValue'}
    fail_point = fail_points[member]
    # configureFailPoint answers how often the fail point was entered so far, for waitForFailPoint.
    count = fail_point['entered']
    if mode == 'off':
        fail_point.update(remaining=0, data={})
    elif mode == 'alwaysOn':
        fail_point.update(remaining=-1, data=cmd.get('data', {}))
    elif isinstance(mode, dict) and 'times' in mode:
        fail_point.update(remaining=int(mode['times']), data=cmd.get('data', {}))
    else:
        return {'ok': 0, 'errmsg': f'the stand-in does not know fail point mode {mode!r}', 'code': 2, 'codeName': 'BadValue'}
    return {'ok': 1, 'count': count}


def wait_for_fail_point(member, cmd):
    """waitForFailPoint (src/mongo/db/commands/fail_point_cmd.cpp): waits until the fail point was
    entered timesEntered times in all, or answers MaxTimeMSExpired 50 after maxTimeMS."""
    fail_point = hang_before_wait[member] if cmd['waitForFailPoint'] == 'hangBeforeWaitingForWriteConcern' else fail_points[member]
    entered = members.changed.wait_for(lambda: fail_point['entered'] >= cmd['timesEntered'], cmd.get('maxTimeMS', 60_000) / 1000)
    return {'ok': 1} if entered else {'ok': 0, 'code': 50, 'codeName': 'MaxTimeMSExpired', 'errmsg': 'operation exceeded time limit'}


def take_fail_point(member, name):
    fail_point = fail_points[member]
    data = fail_point['data']
    if fail_point['remaining'] == 0 or name not in data.get('failCommands', []):
        return None
    if fail_point['remaining'] > 0:
        fail_point['remaining'] -= 1
    fail_point['entered'] += 1
    members.changed.notify_all()
    return data


def error_of(data):
    reply = {'ok': 0, 'code': int(data['errorCode']), 'errmsg': "Failing command via 'failCommand' failpoint"}
    if data.get('errorLabels'):
        reply['errorLabels'] = list(data['errorLabels'])
    return reply


# OP_MSG's moreToCome flag (bit 1): the sender wants no answer, as for an unacknowledged (w:0)
# endSessions (mongo/src/mongo/rpc/op_msg.h, kMoreToCome).
MORE_TO_COME = 1 << 1


def handle(member, request):
    cmd = request.doc
    name = request.command_name or ''
    if getattr(request, 'flags', 0) & MORE_TO_COME:
        return True
    with lock:
        down = members.unreachable(member)
    if down:
        return request.hangup()
    if name == 'standInLoseMajority':
        with lock:
            members.lose_majority(bool(cmd.get('down')))
            return request.reply({'ok': 1})
    if name == 'configureFailPoint':
        with lock:
            return request.reply(configure_fail_point(member, cmd))
    if name == 'waitForFailPoint':
        with request.server._unlock(), lock:
            return request.reply(wait_for_fail_point(member, cmd))
    if name == 'replSetStepDown':
        with lock:
            return request.reply(members.step_down(member, cmd))
    if name.lower() in ('ismaster', 'hello'):
        with lock:
            return request.reply({**HELLO, **members.hello(member)})
    with lock:
        failing = take_fail_point(member, name)
    if failing is not None:
        if failing.get('blockConnection'):
            # mockupdb serves one request of a port at a time; a hung command must not hang the others.
            with request.server._unlock():
                time.sleep(int(failing.get('blockTimeMS', 0)) / 1000)
        if failing.get('closeConnection'):
            return request.hangup()
        if 'errorCode' in failing:
            return request.reply(error_of(failing) if failing.get('errorLabels') else replica_set.retryable(error_of(failing), cmd))
    if name in ('ping', 'endSessions', 'killCursors', 'buildInfo', 'buildinfo', 'getLastError'):
        return request.reply({'version': '7.0.0-stand-in'} if name.lower() == 'buildinfo' else {})
    action = COMMANDS.get(name)
    if action is None:
        return request.reply({'ok': 0, 'errmsg': f'the stand-in does not know {name}', 'code': 59, 'codeName': 'CommandNotFound'})
    with lock:
        refused = members.refusal(member, name, cmd)
    if refused is not None:
        return request.reply(refused)
    try:
        with lock:
            data = members.reading(cmd) if name in replica_set.READS else members.data
            reply = action(data[cmd.get('$db', 'test')], cmd)
            term = members.term
    except Exception as error:  # a stand-in gap must fail the test at once, not hang it
        return request.reply({'ok': 0, 'errmsg': f'stand-in: {error!r}', 'code': 1, 'codeName': 'InternalError'})
    concern_error = None
    if name in replica_set.WRITES:
        with request.server._unlock(), lock:
            if hangs_before_wait(member, name, cmd):
                hang_before_wait[member]['entered'] += 1
                members.changed.notify_all()
                members.changed.wait_for(lambda: not hang_before_wait[member]['on'])
            concern_error = members.wait_for_write_concern(cmd, term)
    if failing is not None and failing.get('writeConcernError'):
        concern_error = failing['writeConcernError']
    if concern_error is None:
        return request.reply({'ok': 1, **reply})
    return request.reply(replica_set.retryable({'ok': 1, **reply, 'writeConcernError': concern_error}, cmd, concern_error))


# Tests across network namespaces (test/support/test-hosts.ts) serve on a host's address, not loopback;
# MockupDB takes no address of its own, so the one run() binds is set here.
address = os.environ.get('MONGO_STAND_IN_HOST', '127.0.0.1')
servers = []
for index in range(len(members.roles)):
    server = MockupDB(port=0, auto_ismaster=False)
    server.autoresponds(Matcher(), lambda request, member=index: handle(member, request))
    server._address = (address, 0)
    members.hosts.append(f'{address}:{server.run()}')
    servers.append(server)
print(' '.join(host.split(':')[1] for host in members.hosts), flush=True)
threading.Event().wait() if sys.stdin is None else sys.stdin.read()
for server in servers:
    server.stop()

"""The replica-set rules of the MongoDB stand-in (loaded by mongo-stand-in.py): a primary, a secondary
and an arbiter (PSA), step-down, replication that can be stopped, majority waits, and the rollback of
what the secondary never copied. Each rule cites the mongod source it imitates (mongodb/mongo, src/)."""
import datetime
import threading

import mongomock
from bson import ObjectId

SET_NAME = 'rs0'
PRIMARY, SECONDARY, ARBITER = 'primary', 'secondary', 'arbiter'

# Commands that write (mongo/src/mongo/db/commands/write_commands.cpp, find_and_modify.cpp) and that read.
WRITES = {'insert', 'update', 'delete', 'findAndModify', 'createIndexes', 'drop', 'dropDatabase'}
READS = {'find', 'aggregate', 'listCollections'}


# Codes of NotPrimaryError, ShutdownError and network errors that make a retryable write (one sent
# with a txnNumber, outside a transaction) worth retrying (mongo/src/mongo/db/error_labels.cpp,
# ErrorLabelBuilder::isRetryableWriteError, from the RetriableError category of error_codes.yml).
RETRYABLE_CODES = {6, 7, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436}


def retryable(reply, cmd, concern_error=None):
    """mongod labels such an answer RetryableWriteError itself (error_labels.cpp); the driver
    retries a write on wire version 9 and later only when the server labelled it."""
    code = (concern_error or reply).get('code')
    if 'txnNumber' in cmd and cmd.get('autocommit') is not False and code in RETRYABLE_CODES:
        reply['errorLabels'] = sorted(set(reply.get('errorLabels', [])) | {'RetryableWriteError'})
    return reply


def copy_data(source):
    """Every database, collection, index and document of a mongomock client, in a new one."""
    target = mongomock.MongoClient()
    for db_name in source.list_database_names():
        for name in source[db_name].list_collection_names():
            collection = source[db_name][name]
            copy = target[db_name][name]
            for index_name, index in collection.index_information().items():
                if index_name != '_id_':
                    copy.create_index(index['key'], name=index_name, unique=bool(index.get('unique')))
            documents = list(collection.find())
            if documents:
                copy.insert_many(documents)
            elif name not in target[db_name].list_collection_names():
                target[db_name].create_collection(name)
    return target


class ReplicaSet:
    def __init__(self, lock):
        self.lock = lock
        self.changed = threading.Condition(lock)
        self.roles = [PRIMARY, SECONDARY, ARBITER]
        self.hosts = []
        self.data = mongomock.MongoClient()
        # What a majority holds while replication is stopped; None while the secondary keeps up.
        self.committed = None
        self.election_id = ObjectId()
        self.term = 1
        # The member left alone while a majority is down (lose_majority), else None.
        self.alone = None

    def primary(self):
        return self.roles.index(PRIMARY) if PRIMARY in self.roles else None

    def unreachable(self, member):
        """A member that is down while a majority is lost: it closes every connection."""
        return self.alone is not None and member != self.alone

    def lose_majority(self, on):
        """The stand-in's own switch (mongod has none: this is two members' hosts going down). The primary
        hears from no majority within the election timeout and steps down (topology_coordinator.cpp,
        TopologyCoordinator::checkMemberTimeouts: "Can't see a majority of the set, relinquishing primary",
        log id 21809); alone it cannot be elected, so the set has no primary, and writes waiting for a
        majority end with PrimarySteppedDown. When the others are back, the member whose oplog is newest
        (the one left alone: nobody copied anything meanwhile) is elected again; nothing is rolled back."""
        if on and self.alone is None and self.primary() is not None:
            self.stop_replication(True)
            self.alone = self.primary()
            self.roles[self.alone] = SECONDARY
            self.term += 1
        elif not on and self.alone is not None:
            self.roles[self.alone] = PRIMARY
            self.alone = None
            self.stop_replication(False)
            self.term += 1
            self.election_id = ObjectId()
        self.changed.notify_all()

    def hello(self, member):
        """topology_coordinator.cpp, TopologyCoordinator::fillHelloForReplSet, and hello_response.cpp:
        the set's name and version, its data-bearing hosts and arbiters, who is primary, who answers."""
        role = self.roles[member]
        reply = {
            'ismaster': role == PRIMARY, 'isWritablePrimary': role == PRIMARY, 'secondary': role == SECONDARY,
            'setName': SET_NAME, 'setVersion': 1, 'me': self.hosts[member],
            'hosts': [h for h, r in zip(self.hosts, self.roles) if r != ARBITER],
            'arbiters': [h for h, r in zip(self.hosts, self.roles) if r == ARBITER],
            'localTime': datetime.datetime.now(datetime.timezone.utc),
        }
        if self.primary() is not None:
            reply['primary'] = self.hosts[self.primary()]
        if role == ARBITER:
            reply['arbiterOnly'] = True
        if role == PRIMARY:
            reply['electionId'] = self.election_id
        return reply

    def refusal(self, member, name, cmd):
        """A write on a node that is not primary: NotWritablePrimary 10107 "not primary"
        (mongo/src/mongo/db/service_entry_point_common.cpp, the canAcceptWritesFor check before a
        command runs); a read without secondaryOk: NotPrimaryNoSecondaryOk 13435."""
        if self.roles[member] == PRIMARY:
            return None
        if name in WRITES:
            return retryable({'ok': 0, 'code': 10107, 'codeName': 'NotWritablePrimary', 'errmsg': 'not primary'}, cmd)
        mode = (cmd.get('$readPreference') or {}).get('mode', 'primary')
        if name in READS and (mode == 'primary' or self.roles[member] == ARBITER):
            return {'ok': 0, 'code': 13435, 'codeName': 'NotPrimaryNoSecondaryOk', 'errmsg': 'not primary and secondaryOk=false'}
        return None

    def reading(self, cmd):
        """A majority read sees the majority commit point's snapshot, never what only the primary holds
        (mongo/src/mongo/db/read_concern_mongod.cpp, waitForReadConcern with kMajorityReadConcern)."""
        level = (cmd.get('readConcern') or {}).get('level', 'local')
        return self.committed if level == 'majority' and self.committed is not None else self.data

    def stop_replication(self, on):
        """The stopReplProducer fail point (mongo/src/mongo/db/repl/oplog_fetcher.cpp): the secondary
        stops fetching the oplog, so the majority commit point stops where it is until it is turned off."""
        if on and self.committed is None:
            self.committed = copy_data(self.data)
        elif not on:
            self.committed = None
            self.changed.notify_all()

    def wait_for_write_concern(self, cmd, term):
        """Called with the lock held after a write. w:0 and w:1 are done once the primary applied it;
        a larger w or majority waits for the secondary (write_concern.cpp, waitForWriteConcern). With
        no w the server's default applies, which is w:1 in a set with an arbiter whose data-bearing
        voters are no more than a majority (read_write_concern_defaults.cpp,
        computeImplicitDefaultWriteConcern). A step-down ends the wait with PrimarySteppedDown 189
        (replication_coordinator_impl.cpp: "Primary stepped down while waiting for replication")."""
        w = (cmd.get('writeConcern') or {}).get('w', 1)
        if w in (0, 1):
            return None
        self.changed.wait_for(lambda: self.committed is None or self.term != term)
        if self.term != term:
            return {'code': 189, 'codeName': 'PrimarySteppedDown', 'errmsg': 'Primary stepped down while waiting for replication'}
        return None

    def step_down(self, member, cmd):
        """replSetStepDown (replication_coordinator_impl.cpp, stepDown): refused on a secondary
        (NotWritablePrimary); without force it needs a caught-up secondary within
        secondaryCatchUpPeriodSecs, else ExceededTimeLimit 262. With force, the secondary that lagged
        is elected and the old primary's writes it never copied are rolled back
        (mongo/src/mongo/db/repl/rollback_impl.cpp): the set's data is the majority's."""
        if self.roles[member] != PRIMARY:
            return {'ok': 0, 'code': 10107, 'codeName': 'NotWritablePrimary', 'errmsg': 'not primary so can\'t step down'}
        if self.committed is not None and not cmd.get('force'):
            return {'ok': 0, 'code': 262, 'codeName': 'ExceededTimeLimit', 'errmsg': 'No electable secondaries caught up'}
        if self.committed is not None:
            self.data, self.committed = self.committed, None
        self.roles[member], self.roles[1 - member] = SECONDARY, PRIMARY
        self.term += 1
        self.election_id = ObjectId()
        self.changed.notify_all()
        return {'ok': 1}

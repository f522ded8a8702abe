// TlsSession on its own, through MemoryTlsPair: no socket, no loop.
#include "MemoryTlsPair.h"

#include <gtest/gtest.h>

#include <string>

namespace loopwire::test {
namespace {

std::string pattern(std::size_t size) {
    std::string bytes(size, '\0');
    for (std::size_t i = 0; i < size; ++i)
        bytes[i] = static_cast<char>('a' + (i * 7 + i / 251) % 26);
    return bytes;
}

class TlsSessionTest : public ::testing::Test {
protected:
    std::unique_ptr<TlsContext> context_ = makeServerContext();
};

TEST_F(TlsSessionTest, AnInactiveSessionIsPlainTransport) {
    TlsSession plain;
    EXPECT_FALSE(plain.isActive());
    EXPECT_FALSE(plain.isHandshaking());
    EXPECT_FALSE(plain.isEstablished());
    ByteBuffer records;
    EXPECT_FALSE(plain.closeNotify(records));
    EXPECT_TRUE(records.empty());
}

TEST_F(TlsSessionTest, HandshakesAndCarriesBytesBothWays) {
    MemoryTlsPair pair(*context_);
    EXPECT_TRUE(pair.server().isHandshaking());
    ASSERT_TRUE(pair.handshake());
    EXPECT_FALSE(pair.server().isHandshaking());
    EXPECT_EQ(pair.server().serverName(), "localhost");
    pair.clientSends("GET / HTTP/1.1\r\n\r\n");
    EXPECT_EQ(pair.serverReceived(), "GET / HTTP/1.1\r\n\r\n");
    pair.serverSends("HTTP/1.1 200 OK\r\n\r\n");
    EXPECT_EQ(pair.clientReceived(), "HTTP/1.1 200 OK\r\n\r\n");
    EXPECT_EQ(context_->currentCall(), nullptr);
}

TEST_F(TlsSessionTest, BytesThatArriveOneAtATimeMakeTheSameConnection) {
    MemoryTlsPair pair(*context_);
    ASSERT_TRUE(pair.handshake(1));
    const std::string request = pattern(40000);
    ASSERT_TRUE(pair.client().send(request));
    pair.pump(1);
    EXPECT_EQ(pair.serverReceived(), request);
    // Every byte was a read of its own, and the partial records in between were kept by the session.
    EXPECT_GT(pair.reads(), request.size());
}

TEST_F(TlsSessionTest, ABatchUpToSixteenKibibytesIsOneRecord) {
    MemoryTlsPair pair(*context_);
    ASSERT_TRUE(pair.handshake());
    EXPECT_EQ(countRecords(pair.serverSends(pattern(10)), kApplicationData), 1u);
    EXPECT_EQ(countRecords(pair.serverSends(pattern(16384)), kApplicationData), 1u);
    EXPECT_EQ(countRecords(pair.serverSends(pattern(16385)), kApplicationData), 2u);
    EXPECT_EQ(countRecords(pair.serverSends(pattern(40000)), kApplicationData), 3u);
    EXPECT_EQ(pair.clientReceived(), pattern(10) + pattern(16384) + pattern(16385) + pattern(40000));
}

TEST_F(TlsSessionTest, NothingIsSealedBeforeTheHandshakeHasFinished) {
    MemoryTlsPair pair(*context_);
    ByteBuffer records;
    EXPECT_FALSE(pair.server().encrypt("early", records));
    EXPECT_FALSE(pair.server().closeNotify(records));
    EXPECT_TRUE(records.empty());
}

TEST_F(TlsSessionTest, ThePeersCloseNotifyIsTheEndOfTheStream) {
    MemoryTlsPair pair(*context_);
    ASSERT_TRUE(pair.handshake());
    pair.clientSends("last words");
    pair.client().closeNotify();
    pair.pump();
    EXPECT_TRUE(pair.serverSawCloseNotify());
    EXPECT_EQ(pair.serverReceived(), "last words");
}

TEST_F(TlsSessionTest, CloseNotifyIsSentOnceAndEndsSending) {
    MemoryTlsPair pair(*context_);
    ASSERT_TRUE(pair.handshake());
    pair.serverClosesNotify();
    EXPECT_EQ(pair.client().status(), TlsClient::Status::Closed);
    ByteBuffer records;
    EXPECT_FALSE(pair.server().closeNotify(records));
    EXPECT_FALSE(pair.server().encrypt("after", records));
    EXPECT_TRUE(records.empty());
}

TEST_F(TlsSessionTest, BytesThatAreNotTlsFailTheSessionWithAnAlert) {
    TlsSession session;
    ASSERT_TRUE(session.start(*context_));
    const std::string garbage = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    std::vector<char> plaintext(garbage.size() + TlsSession::kMaxRecordBytes);
    std::size_t plainLength = 1;
    ByteBuffer records;
    EXPECT_EQ(session.decrypt(garbage, plaintext, plainLength, records), TlsSession::ReadResult::Failed);
    EXPECT_EQ(plainLength, 0u);
    EXPECT_FALSE(session.isHandshaking());
    // Once failed, it stays failed and reads nothing more.
    records.clear();
    EXPECT_EQ(session.decrypt(garbage, plaintext, plainLength, records), TlsSession::ReadResult::Failed);
    EXPECT_TRUE(records.empty());
}

TEST_F(TlsSessionTest, AMovedSessionCarriesTheConnectionOn) {
    MemoryTlsPair pair(*context_);
    ASSERT_TRUE(pair.handshake());
    pair.clientSends("before");
    TlsSession successor(std::move(pair.server()));
    EXPECT_FALSE(pair.server().isActive());
    EXPECT_FALSE(pair.server().isEstablished());
    EXPECT_TRUE(successor.isEstablished());
    pair.useServer(successor);
    pair.clientSends(" after");
    EXPECT_EQ(pair.serverReceived(), "before after");
    pair.serverSends("reply");
    EXPECT_EQ(pair.clientReceived(), "reply");
}

// The missing-server-name handler runs inside a handshake; what it does to another connection of the context (here
// close_notify) is a call of its own, whose records go to that connection, not into the handshake's.
TEST_F(TlsSessionTest, ACallInsideAHandshakeKeepsItsRecordsApart) {
    MemoryTlsPair established(*context_);
    ASSERT_TRUE(established.handshake());
    ByteBuffer otherRecords;
    bool handlerRan = false;
    context_->setMissingServerNameHandler([&](std::string_view hostname) {
        handlerRan = true;
        EXPECT_EQ(hostname, "unknown.test");
        EXPECT_NE(context_->currentCall(), nullptr);
        EXPECT_TRUE(established.server().closeNotify(otherRecords));
    });
    MemoryTlsPair arriving(*context_, "unknown.test");
    ASSERT_TRUE(arriving.handshake());
    EXPECT_TRUE(handlerRan);
    EXPECT_EQ(countRecords(otherRecords.view()), 1u);
    // The handshake went on unharmed, and the other connection's client reads its close_notify.
    arriving.clientSends("still here");
    EXPECT_EQ(arriving.serverReceived(), "still here");
    established.client().receive(otherRecords.view(), otherRecords);
    EXPECT_EQ(established.client().status(), TlsClient::Status::Closed);
}

// A fault at every read and write of a handshake and an exchange, one run each (Beast's fail_count walk): a
// corrupted byte ends the connection on one side or the other and never reaches the application as data; a cut
// leaves both ends to be freed (the sanitizer build checks that nothing leaks).
void walkFaults(TlsContext& context, MemoryTlsPair::Side side, MemoryTlsPair::Fault fault) {
    const std::string request = pattern(3000);
    const std::string reply = pattern(5000);
    std::size_t runs = 0;
    std::size_t harmless = 0;
    for (std::size_t nth = 1;; ++nth) {
        MemoryTlsPair pair(context);
        pair.injectFault(side, nth, fault);
        const bool established = pair.handshake(700);
        if (established) {
            EXPECT_TRUE(pair.client().send(request));
            pair.pump(700);
            if (!pair.serverFailed() && !pair.isCut()) pair.serverSends(reply, 700);
        }
        EXPECT_EQ(context.currentCall(), nullptr) << "fault at " << nth;
        EXPECT_EQ(pair.serverReceived(), request.substr(0, pair.serverReceived().size())) << "fault at " << nth;
        const std::string received = pair.clientReceived();
        EXPECT_EQ(received, reply.substr(0, received.size())) << "fault at " << nth;
        if (!pair.faultHappened()) {
            EXPECT_TRUE(established) << "no fault, yet no connection (run " << nth << ")";
            EXPECT_EQ(pair.serverReceived(), request);
            EXPECT_EQ(received, reply);
            break;
        }
        ++runs;
        const bool ended = pair.serverFailed() || pair.client().status() == TlsClient::Status::Failed;
        if (fault == MemoryTlsPair::Fault::Corrupt && !ended) ++harmless;
        ASSERT_LT(nth, 200u) << "the walk does not end";
    }
    EXPECT_GE(runs, 4u);
    // The byte corrupted is in the middle of what the read or write carries, inside a record's body: the handshake's
    // transcript or the record's tag catches it, and the connection ends.
    EXPECT_EQ(harmless, 0u) << "of " << runs;
}

TEST_F(TlsSessionTest, ACorruptedReadAtAnyPointFailsCleanly) {
    walkFaults(*context_, MemoryTlsPair::Side::Read, MemoryTlsPair::Fault::Corrupt);
}

TEST_F(TlsSessionTest, ACorruptedWriteAtAnyPointFailsCleanly) {
    walkFaults(*context_, MemoryTlsPair::Side::Write, MemoryTlsPair::Fault::Corrupt);
}

TEST_F(TlsSessionTest, AConnectionCutAtAnyReadOrWriteIsFreedCleanly) {
    walkFaults(*context_, MemoryTlsPair::Side::Read, MemoryTlsPair::Fault::Cut);
    walkFaults(*context_, MemoryTlsPair::Side::Write, MemoryTlsPair::Fault::Cut);
}

}  // namespace
}  // namespace loopwire::test

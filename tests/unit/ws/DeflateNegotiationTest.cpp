#include "ws/DeflateNegotiation.h"

#include <gtest/gtest.h>

#include <string>

namespace loopwire::ws {
namespace {

DeflateSettings dedicated(std::uint8_t serverBits = 15, std::uint8_t clientBits = 15) {
    DeflateSettings settings;
    settings.enabled = true;
    settings.serverMaxWindowBits = serverBits;
    settings.clientMaxWindowBits = clientBits;
    return settings;
}

DeflateSettings shared() {
    DeflateSettings settings = dedicated();
    settings.serverNoContextTakeover = true;
    settings.clientNoContextTakeover = true;
    return settings;
}

std::string answer(std::string_view header, const DeflateSettings& settings) {
    DeflateAgreement agreement = DeflateAgreement::negotiate(header, settings);
    char out[kMaxDeflateResponseBytes];
    return std::string(out, agreement.format(out));
}

TEST(DeflateNegotiation, WhatBrowsersOfferIsAccepted) {
    // Chromium's and Firefox's offer.
    const std::string_view browser = "permessage-deflate; client_max_window_bits";
    DeflateAgreement agreement = DeflateAgreement::negotiate(browser, dedicated());
    EXPECT_TRUE(agreement.accepted);
    EXPECT_FALSE(agreement.serverNoContextTakeover);
    EXPECT_EQ(agreement.serverMaxWindowBits, 15);
    EXPECT_EQ(agreement.clientMaxWindowBits, 15);
    EXPECT_EQ(answer(browser, dedicated()), "permessage-deflate; client_max_window_bits=15");
    // A smaller decompressor limits the client's window, which the client offered to accept.
    EXPECT_EQ(answer(browser, dedicated(15, 10)), "permessage-deflate; client_max_window_bits=10");
    // The ws package's default offer.
    EXPECT_EQ(answer("permessage-deflate; client_max_window_bits", shared()),
              "permessage-deflate; server_no_context_takeover; client_no_context_takeover; client_max_window_bits=15");
}

TEST(DeflateNegotiation, OffIsOff) {
    EXPECT_FALSE(DeflateAgreement::negotiate("permessage-deflate", DeflateSettings{}).accepted);
    EXPECT_EQ(answer("permessage-deflate", DeflateSettings{}), "");
    EXPECT_FALSE(DeflateAgreement::negotiate("", dedicated()).accepted);
    EXPECT_FALSE(DeflateAgreement::negotiate("x-webkit-deflate-frame", dedicated()).accepted);
}

TEST(DeflateNegotiation, TheServerHonoursWhatTheClientAsksOfIt) {
    EXPECT_EQ(answer("permessage-deflate; server_no_context_takeover", dedicated()),
              "permessage-deflate; server_no_context_takeover");
    EXPECT_EQ(answer("permessage-deflate; server_max_window_bits=10", dedicated()),
              "permessage-deflate; server_max_window_bits=10");
    EXPECT_EQ(
        DeflateAgreement::negotiate("permessage-deflate; server_max_window_bits=10", dedicated()).serverMaxWindowBits,
        10);
    // The server's own smaller window is answered when the client asked for a limit.
    EXPECT_EQ(answer("permessage-deflate; server_max_window_bits=12", dedicated(11)),
              "permessage-deflate; server_max_window_bits=11");
    // Without client_max_window_bits in the offer the client may use 2^15, and nothing about it is answered.
    DeflateAgreement agreement = DeflateAgreement::negotiate("permessage-deflate", dedicated(15, 9));
    EXPECT_EQ(agreement.clientMaxWindowBits, 15);
    EXPECT_EQ(answer("permessage-deflate", dedicated(15, 9)), "permessage-deflate");
    EXPECT_EQ(answer("permessage-deflate; client_max_window_bits=9", dedicated()),
              "permessage-deflate; client_max_window_bits=9");
}

TEST(DeflateNegotiation, AnOfferTheServerCannotHonourIsSkippedForTheNext) {
    // A window of 2^8 zlib cannot compress with: the next offer is taken.
    EXPECT_EQ(answer("permessage-deflate; server_max_window_bits=8, permessage-deflate", dedicated()),
              "permessage-deflate");
    // Unknown, duplicated or out-of-range parameters make an offer invalid.
    for (const char* header : {"permessage-deflate; mystery",
                               "permessage-deflate; server_no_context_takeover; "
                               "server_no_context_takeover",
                               "permessage-deflate; server_max_window_bits=16",
                               "permessage-deflate; "
                               "server_max_window_bits",
                               "permessage-deflate; client_max_window_bits=7",
                               "permessage-deflate; "
                               "client_max_window_bits=010",
                               "permessage-deflate; server_no_context_takeover=1"}) {
        EXPECT_FALSE(DeflateAgreement::negotiate(header, dedicated()).accepted) << header;
        std::string withFallback = std::string(header) + ", permessage-deflate; client_max_window_bits";
        EXPECT_EQ(answer(withFallback, dedicated()), "permessage-deflate; client_max_window_bits=15") << header;
    }
}

TEST(DeflateNegotiation, QuotedValuesAndCaseAreAccepted) {
    EXPECT_EQ(answer("Permessage-Deflate; Client_Max_Window_Bits=\"12\"", dedicated()),
              "permessage-deflate; client_max_window_bits=12");
    EXPECT_EQ(answer("foo; bar=\"a, b\", permessage-deflate", dedicated()), "permessage-deflate");
}

TEST(DeflateNegotiation, AHeaderThatDoesNotParseIsDeclinedWhole) {
    for (const char* header : {"permessage-deflate; client_max_window_bits=\"12", "permessage-deflate;",
                               "permessage-deflate; =12", "permessage-deflate client_max_window_bits",
                               "permessage-deflate, ;x", "permessage-deflate; server_max_window_bits="}) {
        EXPECT_FALSE(DeflateAgreement::negotiate(header, dedicated()).accepted) << header;
    }
    EXPECT_TRUE(DeflateAgreement::negotiate(" , permessage-deflate ,", dedicated()).accepted);
}

TEST(DeflateNegotiation, TheLongestAnswerFits) {
    const std::string_view everything =
        "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=10; "
        "client_max_window_bits=11";
    EXPECT_EQ(answer(everything, shared()), everything);
    EXPECT_LE(everything.size(), kMaxDeflateResponseBytes);
}

}  // namespace
}  // namespace loopwire::ws

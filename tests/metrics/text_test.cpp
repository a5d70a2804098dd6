// The text metrics: the error rates (CharErrorRate, WordErrorRate, MatchErrorRate,
// WordInfoLost, WordInfoPreserved) and EditDistance against a Levenshtein distance written in
// Python on Python's own strings (so code points and str.split() are Python's), torchmetrics'
// documented values, Perplexity against numpy's log-softmax, and the errors.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/metrics/metric_error.h"
#include "fulgur/metrics/text/bleu_score.h"
#include "fulgur/metrics/text/char_error_rate.h"
#include "fulgur/metrics/text/edit_distance.h"
#include "fulgur/metrics/text/match_error_rate.h"
#include "fulgur/metrics/text/perplexity.h"
#include "fulgur/metrics/text/text_inputs.h"
#include "fulgur/metrics/text/word_error_rate.h"
#include "fulgur/metrics/text/word_info_lost.h"
#include "fulgur/metrics/text/word_info_preserved.h"
#include "metrics/classification_helpers.h"
#include "metrics/reference.h"
#include "metrics/thread_world.h"

namespace fulgur::metrics {
namespace {

using fulgur::testing::Check;
using fulgur::testing::expect_reference;
using fulgur::testing::py;
using fulgur::testing::ThreadRank;
using fulgur::testing::ThreadWorld;
using fulgur::testing::Throws;

const char* kText =
    "def lev(a, b, sub=1):\n"
    "    prev = list(range(len(b) + 1))\n"
    "    for i, x in enumerate(a, 1):\n"
    "        cur = [i]\n"
    "        for j, y in enumerate(b, 1):\n"
    "            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y) * sub))\n"
    "        prev = cur\n"
    "    return prev[-1]\n"
    "def counts(P, T, words):\n"
    "    cut = (lambda s: s.split()) if words else (lambda s: s)\n"
    "    pairs = [(cut(p), cut(t)) for p, t in zip(P, T)]\n"
    "    e = sum(lev(p, t) for p, t in pairs)\n"
    "    nt = sum(len(t) for p, t in pairs)\n"
    "    np_ = sum(len(p) for p, t in pairs)\n"
    "    mx = sum(max(len(p), len(t)) for p, t in pairs)\n"
    "    return e, nt, np_, mx\n"
    "def cer(P, T):\n"
    "    e, nt, np_, mx = counts(P, T, False)\n"
    "    return e / nt\n"
    "def wer(P, T):\n"
    "    e, nt, np_, mx = counts(P, T, True)\n"
    "    return e / nt\n"
    "def mer(P, T):\n"
    "    e, nt, np_, mx = counts(P, T, True)\n"
    "    return e / mx\n"
    "def wip(P, T):\n"
    "    e, nt, np_, mx = counts(P, T, True)\n"
    "    return (mx - e) ** 2 / (nt * np_)\n";

// A Python list of the texts, each written as its UTF-8 bytes in hex.
std::string py_texts(const std::vector<std::string>& texts) {
  std::string list = "[";
  for (const auto& text : texts) {
    std::string hex;
    for (const unsigned char c : text) hex += fmt::format("{:02x}", c);
    list += "bytes.fromhex('" + hex + "').decode('utf-8'), ";
  }
  return list + "]";
}

const std::vector<std::string> kPreds{
    "the cat sat on the mat", "naïve café au lait",   "  tabs\tand\nnew lines  ", "",
    "one two three four",     "completely unrelated", "日本語 の テキスト",       "repeat repeat"};
const std::vector<std::string> kTarget{
    "the cat sat on a mat", "naive cafe au lait", "tabs and new  lines",   "nothing predicted",
    "one three four five",  "an exact reference", "日本 の テキスト です", "repeat"};

TEST(ErrorRates, MatchPythonOnACorpus) {
  CharErrorRate cer;
  WordErrorRate wer;
  MatchErrorRate mer;
  WordInfoLost wil;
  WordInfoPreserved wip;
  // In two batches: the rates are over the corpus, not per batch.
  const std::vector<std::string> p1(kPreds.begin(), kPreds.begin() + 3),
      p2(kPreds.begin() + 3, kPreds.end()), t1(kTarget.begin(), kTarget.begin() + 3),
      t2(kTarget.begin() + 3, kTarget.end());
  for (TextMetric* metric : std::vector<TextMetric*>{&cer, &wer, &mer, &wil, &wip}) {
    metric->update(p1, t1);
    metric->update(p2, t2);
  }
  expect_reference(
      std::string(kText) + "P = " + py_texts(kPreds) + "\nT = " + py_texts(kTarget) + "\n",
      {{"CER", cer.compute(), "cer(P, T)"},
       {"WER", wer.compute(), "wer(P, T)"},
       {"MER", mer.compute(), "mer(P, T)"},
       {"WIL", wil.compute(), "1 - wip(P, T)"},
       {"WIP", wip.compute(), "wip(P, T)"},
       {"batch WER", wer.forward(p1, t1), "wer(P[:3], T[:3])"}},
      1e-12);
  EXPECT_EQ(cer.higher_is_better(), false);
  EXPECT_EQ(wip.higher_is_better(), true);
}

TEST(ErrorRates, TorchmetricsDocumentedValues) {
  const std::vector<std::string> preds{"this is the prediction", "there is an other sample"};
  const std::vector<std::string> target{"this is the reference", "there is another one"};
  CharErrorRate cer;
  EXPECT_NEAR(cer.forward(preds, target).item<double>(), 0.3415, 5e-5);
  WordErrorRate wer;
  EXPECT_NEAR(wer.forward(preds, target).item<double>(), 0.5, 1e-12);
  MatchErrorRate mer;
  EXPECT_NEAR(mer.forward(preds, target).item<double>(), 0.4444, 5e-5);
  WordInfoLost wil;
  EXPECT_NEAR(wil.forward(preds, target).item<double>(), 0.6528, 5e-5);
  WordInfoPreserved wip;
  EXPECT_NEAR(wip.forward(preds, target).item<double>(), 0.3472, 5e-5);
}

TEST(TextMetrics, SyncedValueIsTheCorpusValue) {
  std::vector<std::vector<std::string>> references;
  for (const auto& t : kTarget) references.push_back({t});
  WordErrorRate whole_wer;
  whole_wer.update(kPreds, kTarget);
  BLEUScore whole_bleu({.n_gram = 2});
  whole_bleu.update(kPreds, references);
  ThreadWorld world(2);
  std::vector<double> wer_synced(2), bleu_synced(2);
  world.run([&](int rank) {
    ThreadRank strategy(world, rank);
    const size_t first = rank == 0 ? 0 : 5, last = rank == 0 ? 5 : kPreds.size();
    const std::vector<std::string> preds(kPreds.begin() + first, kPreds.begin() + last);
    WordErrorRate wer;
    wer.update(preds, {kTarget.begin() + first, kTarget.begin() + last});
    wer_synced[rank] = wer.compute(strategy).item<double>();
    BLEUScore bleu({.n_gram = 2});
    bleu.update(preds, {references.begin() + first, references.begin() + last});
    bleu_synced[rank] = bleu.compute(strategy).item<double>();
  });
  const double wer = whole_wer.compute().item<double>(), bleu = whole_bleu.compute().item<double>();
  EXPECT_EQ(wer_synced, (std::vector<double>{wer, wer}));
  EXPECT_EQ(bleu_synced, (std::vector<double>{bleu, bleu}));
  EXPECT_GT(bleu, 0.0);
}

TEST(EditDistance, MatchesPythonAndTorchmetrics) {
  EditDistance plain;
  EXPECT_EQ(plain.forward({"rain"}, {"shine"}).item<double>(), 3.0);
  EditDistance costly({.substitution_cost = 2});
  EXPECT_EQ(costly.forward({"rain"}, {"shine"}).item<double>(), 5.0);
  EditDistance none({.reduction = "none"});
  EXPECT_TRUE(torch::equal(none.forward({"rain", "lnaguaeg"}, {"shine", "language"}),
                           torch::tensor({3.0, 4.0}, torch::kDouble)));
  EXPECT_FALSE(none.is_scalar());
  EditDistance mean;
  EXPECT_EQ(mean.forward({"rain", "lnaguaeg"}, {"shine", "language"}).item<double>(), 3.5);
  EditDistance summed({.substitution_cost = 3, .reduction = "sum"});
  EditDistance each({.reduction = "none"});
  summed.update(kPreds, kTarget);
  each.update(kPreds, kTarget);
  expect_reference(
      std::string(kText) + "P = " + py_texts(kPreds) + "\nT = " + py_texts(kTarget) + "\n",
      {{"sum, cost 3", summed.compute(), "sum(lev(p, t, 3) for p, t in zip(P, T))"},
       {"none", each.compute(), "[lev(p, t) for p, t in zip(P, T)]"}},
      0);
}

TEST(TextInputs, CodePointsAndWords) {
  EXPECT_EQ(decode_utf8("M", "aé日😀"), (std::u32string{U'a', U'é', U'日', U'😀'}));
  EXPECT_EQ(split_words(U"\u3000 a\u00a0b\tc  "), (std::vector<std::u32string>{U"a", U"b", U"c"}));
  EXPECT_TRUE(split_words(U" \n ").empty());
  EXPECT_EQ(edit_distance(U"kitten", U"sitting"), 3);
  EXPECT_EQ(edit_distance(U"", U"abc"), 3);
  EXPECT_EQ(edit_distance(U"abc", U"abc", 0), 0);
  EXPECT_EQ(edit_distance(U"ab", U"ba", 0), 0);
}

TEST(Perplexity, MatchesNumpy) {
  torch::manual_seed(12);
  const auto logits = torch::randn({4, 7, 11}) * 2;
  auto tokens = torch::randint(0, 11, {4, 7}, torch::kLong);
  tokens.index_put_({0, torch::indexing::Slice(3)}, -100);  // padding
  Perplexity ignoring({.ignore_index = -100});
  ignoring.update(logits.slice(0, 0, 1), tokens.slice(0, 0, 1));
  ignoring.update(logits.slice(0, 1), tokens.slice(0, 1));
  Perplexity plain;
  const auto no_padding = tokens.clamp_min(0);
  plain.update(logits, no_padding);
  expect_reference(
      "from scipy.special import log_softmax\n"
      "L = log_softmax(np.array(" +
          py(logits) + "), axis=-1)\nT = np.array(" + py(tokens) +
          ")\n"
          "def ppl(T):\n"
          "    keep = T != -100\n"
          "    picked = np.take_along_axis(L, np.maximum(T, 0)[..., None], -1)[..., 0]\n"
          "    return np.exp(-picked[keep].mean())\n",
      {{"ignore_index", ignoring.compute(), "ppl(T)"},
       {"plain", plain.compute(), "ppl(np.maximum(T, 0))"}},
      1e-9);
  EXPECT_EQ(plain.higher_is_better(), false);
  // A uniform model's perplexity is the vocabulary size.
  Perplexity uniform;
  EXPECT_NEAR(uniform.forward(torch::zeros({2, 3, 50}), torch::randint(0, 50, {2, 3}, torch::kLong))
                  .item<double>(),
              50.0, 1e-9);
}

const char* kBleu =
    "import math\n"
    "from collections import Counter\n"
    "def ngrams(w, n):\n"
    "    c = Counter()\n"
    "    for k in range(1, n + 1):\n"
    "        for i in range(len(w) - k + 1):\n"
    "            c[tuple(w[i:i + k])] += 1\n"
    "    return c\n"
    "def bleu(P, T, n=4, smooth=False, weights=None):\n"
    "    weights = weights or [1 / n] * n\n"
    "    num, den, c, r = [0] * n, [0] * n, 0, 0\n"
    "    for p, refs in zip(P, T):\n"
    "        pw, rws = p.split(), [t.split() for t in refs]\n"
    "        c += len(pw)\n"
    "        diffs = [abs(len(pw) - len(x)) for x in rws]\n"
    "        r += len(rws[diffs.index(min(diffs))])\n"
    "        most = Counter()\n"
    "        for x in rws:\n"
    "            most |= ngrams(x, n)\n"
    "        pc = ngrams(pw, n)\n"
    "        for g, k in (pc & most).items():\n"
    "            num[len(g) - 1] += k\n"
    "        for g, k in pc.items():\n"
    "            den[len(g) - 1] += k\n"
    "    if min(num) == 0:\n"
    "        return 0.0\n"
    "    add = [0] + [int(smooth)] * (n - 1)\n"
    "    prec = [(num[i] + add[i]) / (den[i] + add[i]) for i in range(n)]\n"
    "    gm = math.exp(sum(w * math.log(q) for w, q in zip(weights, prec)))\n"
    "    return gm * (1.0 if c > r else math.exp(1 - r / c))\n";

std::string py_references(const std::vector<std::vector<std::string>>& target) {
  std::string list = "[";
  for (const auto& references : target) list += py_texts(references) + ", ";
  return list + "]";
}

TEST(BLEUScore, MatchesPythonAndTorchmetrics) {
  BLEUScore documented;
  EXPECT_NEAR(documented
                  .forward({"the cat is on the mat"},
                           {{"there is a cat on the mat", "a cat is on the mat"}})
                  .item<double>(),
              0.7598, 5e-5);
  const std::vector<std::string> preds{
      "the quick brown fox jumps over the lazy dog",
      "a fast brown fox leaped over a sleeping dog today",
      "it is a guide to action which ensures that the military always obeys the commands",
      "he read the book because he was interested in world history",
      "the the the the the the the",
      "short one"};
  const std::vector<std::vector<std::string>> target{
      {"the quick brown fox jumped over the lazy dog", "a quick brown fox jumps over a lazy dog"},
      {"a quick brown fox leaped over the sleeping dog"},
      {"it is a guide to action that ensures that the military will forever heed party commands",
       "it is the guiding principle which guarantees the military forces always being under "
       "the command of the party",
       "it is the practical guide for the army always to heed the directions of the party"},
      {"he was interested in world history because he read the book"},
      {"the cat is on the mat", "there is a cat on the mat"},
      {"a rather longer reference than the prediction", "short reference here"}};
  std::vector<Check> checks;
  const auto fed = [&](BLEUScoreOptions options) {
    auto metric = std::make_shared<BLEUScore>(std::move(options));
    metric->update({preds.begin(), preds.begin() + 2}, {target.begin(), target.begin() + 2});
    metric->update({preds.begin() + 2, preds.end()}, {target.begin() + 2, target.end()});
    return metric->compute();
  };
  checks.push_back({"4-gram", fed({}), "bleu(P, T)"});
  checks.push_back({"4-gram smooth", fed({.smooth = true}), "bleu(P, T, smooth=True)"});
  checks.push_back({"2-gram weighted", fed({.n_gram = 2, .weights = {0.7, 0.3}}),
                    "bleu(P, T, 2, weights=[0.7, 0.3])"});
  checks.push_back({"1-gram", fed({.n_gram = 1}), "bleu(P, T, 1)"});
  // Without a 4-gram match anywhere: 0, smoothed or not (as torchmetrics).
  BLEUScore no_match({.smooth = true});
  checks.push_back({"no 4-gram", no_match.forward({preds[4]}, {target[4]}),
                    "bleu(P[4:5], T[4:5], smooth=True)"});
  expect_reference(
      std::string(kBleu) + "P = " + py_texts(preds) + "\nT = " + py_references(target) + "\n",
      checks, 1e-12);
  EXPECT_EQ(no_match.compute().item<double>(), 0.0);
  EXPECT_GT(checks[0].value.item<double>(), 0.2);
}

TEST(TextMetrics, BadInputIsAClearError) {
  WordErrorRate wer;
  EXPECT_THAT(
      [&] {
        wer.update({"a", "b"}, {"a"});
      },
      Throws<MetricError>("WordErrorRate", "2 predictions for 1 references"));
  EXPECT_THAT(
      [&] { wer.update({"ok"}, {std::string("bad \xff byte")}); },
      Throws<MetricError>("WordErrorRate: the text is not valid UTF-8", "0xff at offset 4"));
  EXPECT_THAT([&] { wer.update({std::string("cut \xc3")}, {"x"}); },
              Throws<MetricError>("not valid UTF-8", "0xc3 at offset 4"));
  EXPECT_THAT([] { EditDistance({.substitution_cost = -1}); },
              Throws<ConfigError>("EditDistance", "substitution_cost must be 0 or more, not -1"));
  EXPECT_THAT([] { EditDistance({.reduction = "elementwise_mean"}); },
              Throws<ConfigError>("EditDistance(reduction=\"elementwise_mean\")",
                                  "\"mean\", \"sum\" or \"none\""));
  EXPECT_THAT([] { BLEUScore({.n_gram = 0}); },
              Throws<ConfigError>("BLEUScore", "n_gram must be 1 or more, not 0"));
  EXPECT_THAT(
      [] {
        BLEUScore({.n_gram = 3, .weights = {0.5, 0.5}});
      },
      Throws<ConfigError>("BLEUScore: 2 weights for n_gram = 3", "one per order"));
  BLEUScore bleu;
  EXPECT_THAT(
      [&] {
        bleu.update({"a", "b"}, {{"a"}});
      },
      Throws<MetricError>("BLEUScore", "2 predictions for 1 lists of references"));
  EXPECT_THAT([&] { bleu.update({"a"}, {{}}); },
              Throws<MetricError>("BLEUScore", "prediction 0 has no reference"));
  Perplexity perplexity;
  EXPECT_THAT(
      [&] {
        perplexity.update(torch::zeros({2, 3}), torch::zeros({2, 3}, torch::kLong));
      },
      Throws<MetricError>("[batch, seq_len, vocab]", "not [2, 3] and [2, 3]"));
  EXPECT_THAT(
      [&] {
        perplexity.update(torch::zeros({2, 3, 4}), torch::zeros({2, 3}));
      },
      Throws<MetricError>("Perplexity", "target must hold int64 token ids, not Float"));
  EXPECT_THAT(
      [&] {
        perplexity.update(torch::zeros({2, 3, 4}, torch::kLong),
                          torch::zeros({2, 3}, torch::kLong));
      },
      Throws<MetricError>("Perplexity", "floating point scores, not Long"));
  EXPECT_THAT(
      [&] {
        perplexity.update(torch::zeros({1, 2, 4}), torch::tensor({{0L, 4L}}));
      },
      Throws<MetricError>("token id 4", "outside the vocabulary [0, 4)"));
  EXPECT_THAT(
      [&] {
        perplexity.update(torch::zeros({1, 2, 4}), torch::tensor({{-100L, 1L}}));
      },
      Throws<MetricError>("token id -100", "[0, 4)"));
}

}  // namespace
}  // namespace fulgur::metrics

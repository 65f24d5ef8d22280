"""The "Deep Learning for NLP with PyTorch" tutorials in small: a bag-of-words
language classifier (Linear + log_softmax, NLLLoss, SGD), an n-gram language
model (Embedding(...).view((1, -1)), relu, log_softmax), the "Sequence Models
and LSTM" part-of-speech tagger (Embedding -> LSTM on (len, 1, -1) ->
Linear), and the BiLSTM-CRF (forward algorithm with log_sum_exp over
expand/torch.full/torch.cat, gold-path score with transitions[tags[i + 1],
tags[i]], Viterbi decoding with backpointers, SGD with weight_decay).

run(torch, init=None, seed=1) -> dict(losses={model: [...]}, decoded=..., init=...).
The CRF re-draws its LSTM state with torch.randn every sentence (as the
tutorial does); crf_random_hidden=False draws zeros instead, so that two
frameworks can see the same numbers."""


def run(torch, init=None, seed=1, epochs=(30, 3, 30, 8), crf_random_hidden=True):
    nn, F, optim = torch.nn, torch.nn.functional, torch.optim
    torch.manual_seed(seed)
    start = {} if init is None else init
    out, decoded = {}, {}

    def same_start(name, model):
        if name in start:
            model.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in start[name].items()})
        else:
            start[name] = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
        return model

    # ---- bag of words
    data = [("me gusta comer en la cafeteria".split(), "SPANISH"), ("Give it to me".split(), "ENGLISH"),
            ("No creo que sea una buena idea".split(), "SPANISH"),
            ("No it is not a good idea to get lost at sea".split(), "ENGLISH")]
    test_data = [("Yo creo que si".split(), "SPANISH"), ("it is lost on me".split(), "ENGLISH")]
    word_to_ix = {}
    for sent, _ in data + test_data:
        for word in sent:
            if word not in word_to_ix:
                word_to_ix[word] = len(word_to_ix)

    class BoWClassifier(nn.Module):
        def __init__(self, num_labels, vocab_size):
            super(BoWClassifier, self).__init__()
            self.linear = nn.Linear(vocab_size, num_labels)

        def forward(self, bow_vec):
            return F.log_softmax(self.linear(bow_vec), dim=1)

    def make_bow_vector(sentence):
        vec = torch.zeros(len(word_to_ix))
        for word in sentence:
            vec[word_to_ix[word]] += 1
        return vec.view(1, -1)

    label_to_ix = {"SPANISH": 0, "ENGLISH": 1}
    model = same_start("bow", BoWClassifier(2, len(word_to_ix)))
    loss_function = nn.NLLLoss()
    optimizer = optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for epoch in range(epochs[0]):
        for instance, label in data:
            model.zero_grad()
            loss = loss_function(model(make_bow_vector(instance)), torch.LongTensor([label_to_ix[label]]))
            loss.backward()
            optimizer.step()
        losses.append(loss.item())
    with torch.no_grad():
        losses += [model(make_bow_vector(s))[0, label_to_ix[l]].item() for s, l in test_data]
        losses += next(model.parameters())[:, word_to_ix["creo"]].tolist()
    out["bow"] = losses

    # ---- n-gram language model
    CONTEXT_SIZE, EMBEDDING_DIM = 2, 10
    test_sentence = ("When forty winters shall besiege thy brow, And dig deep trenches in thy beauty's field, "
                     "Thy youth's proud livery so gazed on now, Will be a totter'd weed of small worth held").split()
    ngrams = [([test_sentence[i - j - 1] for j in range(CONTEXT_SIZE)], test_sentence[i])
              for i in range(CONTEXT_SIZE, len(test_sentence))]
    vocab = sorted(set(test_sentence))
    word_to_ix = {word: i for i, word in enumerate(vocab)}

    class NGramLanguageModeler(nn.Module):
        def __init__(self, vocab_size, embedding_dim, context_size):
            super(NGramLanguageModeler, self).__init__()
            self.embeddings = nn.Embedding(vocab_size, embedding_dim)
            self.linear1 = nn.Linear(context_size * embedding_dim, 128)
            self.linear2 = nn.Linear(128, vocab_size)

        def forward(self, inputs):
            embeds = self.embeddings(inputs).view((1, -1))
            out = F.relu(self.linear1(embeds))
            return F.log_softmax(self.linear2(out), dim=1)

    model = same_start("ngram", NGramLanguageModeler(len(vocab), EMBEDDING_DIM, CONTEXT_SIZE))
    optimizer = optim.SGD(model.parameters(), lr=0.01)
    losses = []
    for epoch in range(epochs[1]):
        total_loss = 0
        for context, target in ngrams:
            context_idxs = torch.tensor([word_to_ix[w] for w in context], dtype=torch.long)
            model.zero_grad()
            loss = loss_function(model(context_idxs), torch.tensor([word_to_ix[target]], dtype=torch.long))
            loss.backward()
            optimizer.step()
            total_loss += loss.item()
        losses.append(total_loss)
    out["ngram"] = losses + model.embeddings.weight[word_to_ix["beauty's"]].tolist()

    # ---- LSTM part-of-speech tagger
    def prepare_sequence(seq, to_ix):
        return torch.tensor([to_ix[w] for w in seq], dtype=torch.long)

    training_data = [("The dog ate the apple".split(), ["DET", "NN", "V", "DET", "NN"]),
                     ("Everybody read that book".split(), ["NN", "V", "DET", "NN"])]
    word_to_ix = {}
    for sent, tags in training_data:
        for word in sent:
            if word not in word_to_ix:
                word_to_ix[word] = len(word_to_ix)
    tag_to_ix = {"DET": 0, "NN": 1, "V": 2}

    class LSTMTagger(nn.Module):
        def __init__(self, embedding_dim, hidden_dim, vocab_size, tagset_size):
            super(LSTMTagger, self).__init__()
            self.hidden_dim = hidden_dim
            self.word_embeddings = nn.Embedding(vocab_size, embedding_dim)
            self.lstm = nn.LSTM(embedding_dim, hidden_dim)
            self.hidden2tag = nn.Linear(hidden_dim, tagset_size)

        def forward(self, sentence):
            embeds = self.word_embeddings(sentence)
            lstm_out, _ = self.lstm(embeds.view(len(sentence), 1, -1))
            tag_space = self.hidden2tag(lstm_out.view(len(sentence), -1))
            return F.log_softmax(tag_space, dim=1)

    model = same_start("tagger", LSTMTagger(6, 6, len(word_to_ix), len(tag_to_ix)))
    optimizer = optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for epoch in range(epochs[2]):
        for sentence, tags in training_data:
            model.zero_grad()
            loss = loss_function(model(prepare_sequence(sentence, word_to_ix)), prepare_sequence(tags, tag_to_ix))
            loss.backward()
            optimizer.step()
        losses.append(loss.item())
    out["tagger"] = losses
    with torch.no_grad():
        decoded["tagger"] = model(prepare_sequence(training_data[0][0], word_to_ix)).argmax(1).tolist()

    # ---- BiLSTM-CRF
    START_TAG, STOP_TAG = "<START>", "<STOP>"

    def argmax(vec):
        _, idx = torch.max(vec, 1)
        return idx.item()

    def log_sum_exp(vec):
        max_score = vec[0, argmax(vec)]
        max_score_broadcast = max_score.view(1, -1).expand(1, vec.size()[1])
        return max_score + torch.log(torch.sum(torch.exp(vec - max_score_broadcast)))

    class BiLSTM_CRF(nn.Module):
        def __init__(self, vocab_size, tag_to_ix, embedding_dim, hidden_dim):
            super(BiLSTM_CRF, self).__init__()
            self.embedding_dim, self.hidden_dim = embedding_dim, hidden_dim
            self.tag_to_ix, self.tagset_size = tag_to_ix, len(tag_to_ix)
            self.word_embeds = nn.Embedding(vocab_size, embedding_dim)
            self.lstm = nn.LSTM(embedding_dim, hidden_dim // 2, num_layers=1, bidirectional=True)
            self.hidden2tag = nn.Linear(hidden_dim, self.tagset_size)
            self.transitions = nn.Parameter(torch.randn(self.tagset_size, self.tagset_size))
            self.transitions.data[tag_to_ix[START_TAG], :] = -10000
            self.transitions.data[:, tag_to_ix[STOP_TAG]] = -10000
            self.hidden = self.init_hidden()

        def init_hidden(self):
            draw = torch.randn if crf_random_hidden else torch.zeros
            return (draw(2, 1, self.hidden_dim // 2), draw(2, 1, self.hidden_dim // 2))

        def _forward_alg(self, feats):
            init_alphas = torch.full((1, self.tagset_size), -10000.)
            init_alphas[0][self.tag_to_ix[START_TAG]] = 0.
            forward_var = init_alphas
            for feat in feats:
                alphas_t = []
                for next_tag in range(self.tagset_size):
                    emit_score = feat[next_tag].view(1, -1).expand(1, self.tagset_size)
                    trans_score = self.transitions[next_tag].view(1, -1)
                    next_tag_var = forward_var + trans_score + emit_score
                    alphas_t.append(log_sum_exp(next_tag_var).view(1))
                forward_var = torch.cat(alphas_t).view(1, -1)
            terminal_var = forward_var + self.transitions[self.tag_to_ix[STOP_TAG]]
            return log_sum_exp(terminal_var)

        def _get_lstm_features(self, sentence):
            self.hidden = self.init_hidden()
            embeds = self.word_embeds(sentence).view(len(sentence), 1, -1)
            lstm_out, self.hidden = self.lstm(embeds, self.hidden)
            return self.hidden2tag(lstm_out.view(len(sentence), self.hidden_dim))

        def _score_sentence(self, feats, tags):
            score = torch.zeros(1)
            tags = torch.cat([torch.tensor([self.tag_to_ix[START_TAG]], dtype=torch.long), tags])
            for i, feat in enumerate(feats):
                score = score + self.transitions[tags[i + 1], tags[i]] + feat[tags[i + 1]]
            return score + self.transitions[self.tag_to_ix[STOP_TAG], tags[-1]]

        def _viterbi_decode(self, feats):
            backpointers = []
            init_vvars = torch.full((1, self.tagset_size), -10000.)
            init_vvars[0][self.tag_to_ix[START_TAG]] = 0
            forward_var = init_vvars
            for feat in feats:
                bptrs_t, viterbivars_t = [], []
                for next_tag in range(self.tagset_size):
                    next_tag_var = forward_var + self.transitions[next_tag]
                    best_tag_id = argmax(next_tag_var)
                    bptrs_t.append(best_tag_id)
                    viterbivars_t.append(next_tag_var[0][best_tag_id].view(1))
                forward_var = (torch.cat(viterbivars_t) + feat).view(1, -1)
                backpointers.append(bptrs_t)
            terminal_var = forward_var + self.transitions[self.tag_to_ix[STOP_TAG]]
            best_tag_id = argmax(terminal_var)
            path_score = terminal_var[0][best_tag_id]
            best_path = [best_tag_id]
            for bptrs_t in reversed(backpointers):
                best_tag_id = bptrs_t[best_tag_id]
                best_path.append(best_tag_id)
            assert best_path.pop() == self.tag_to_ix[START_TAG]
            best_path.reverse()
            return path_score, best_path

        def neg_log_likelihood(self, sentence, tags):
            feats = self._get_lstm_features(sentence)
            return self._forward_alg(feats) - self._score_sentence(feats, tags)

        def forward(self, sentence):
            return self._viterbi_decode(self._get_lstm_features(sentence))

    training_data = [("the wall street journal reported today that apple corporation made money".split(),
                      "B I I I O O O B I O O".split()),
                     ("georgia tech is a university in georgia".split(), "B I O O O O B".split())]
    word_to_ix = {}
    for sentence, tags in training_data:
        for word in sentence:
            if word not in word_to_ix:
                word_to_ix[word] = len(word_to_ix)
    tag_to_ix = {"B": 0, "I": 1, "O": 2, START_TAG: 3, STOP_TAG: 4}
    model = same_start("crf", BiLSTM_CRF(len(word_to_ix), tag_to_ix, 5, 4))
    optimizer = optim.SGD(model.parameters(), lr=0.01, weight_decay=1e-4)
    losses = []
    for epoch in range(epochs[3]):
        for sentence, tags in training_data:
            model.zero_grad()
            loss = model.neg_log_likelihood(prepare_sequence(sentence, word_to_ix),
                                            torch.tensor([tag_to_ix[t] for t in tags], dtype=torch.long))
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    with torch.no_grad():
        score, path = model(prepare_sequence(training_data[0][0], word_to_ix))
    out["crf"] = losses + [score.item()]
    decoded["crf"] = path
    return {"losses": out, "decoded": decoded, "init": start}

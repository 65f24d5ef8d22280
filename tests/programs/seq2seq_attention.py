"""The "NLP From Scratch: Translation with a Sequence to Sequence Network and
Attention" tutorial on a few made-up French-English pairs: a Lang vocabulary,
an Embedding + GRU(batch_first) encoder, a Bahdanau-attention GRU decoder
(Wa/Ua/Va, tanh, squeeze(2).unsqueeze(1), softmax, bmm, cat on dim 2) with
teacher forcing, torch.empty(...).fill_(SOS), topk/detach greedy decoding,
NLLLoss over view(-1), TensorDataset + RandomSampler DataLoader, two Adam
optimizers, then greedy translation of a sentence under no_grad.

run(torch, init=None, dropout=0.1, sampler="random") -> dict(losses, words, attn_shape, init)."""
import numpy as np

PAIRS = [["je suis froid", "i am cold"], ["il est grand", "he is tall"], ["elle est petite", "she is small"],
         ["nous sommes ici", "we are here"], ["je suis grand", "i am tall"], ["il est froid", "he is cold"],
         ["elle est ici", "she is here"], ["je suis petite", "i am small"]]


def run(torch, init=None, seed=0, dropout=0.1, epochs=25, hidden_size=16, batch_size=4, sampler="random"):
    nn, F, optim = torch.nn, torch.nn.functional, torch.optim
    data = torch.utils.data
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    SOS_token, EOS_token, MAX_LENGTH = 0, 1, 5
    torch.manual_seed(seed)

    class Lang:
        def __init__(self, name):
            self.name = name
            self.word2index, self.word2count = {}, {}
            self.index2word = {0: "SOS", 1: "EOS"}
            self.n_words = 2

        def addSentence(self, sentence):
            for word in sentence.split(" "):
                self.addWord(word)

        def addWord(self, word):
            if word not in self.word2index:
                self.word2index[word] = self.n_words
                self.word2count[word] = 1
                self.index2word[self.n_words] = word
                self.n_words += 1
            else:
                self.word2count[word] += 1

    input_lang, output_lang = Lang("fra"), Lang("eng")
    for p in PAIRS:
        input_lang.addSentence(p[0])
        output_lang.addSentence(p[1])

    class EncoderRNN(nn.Module):
        def __init__(self, input_size, hidden_size, dropout_p=0.1):
            super(EncoderRNN, self).__init__()
            self.hidden_size = hidden_size
            self.embedding = nn.Embedding(input_size, hidden_size)
            self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
            self.dropout = nn.Dropout(dropout_p)

        def forward(self, input):
            embedded = self.dropout(self.embedding(input))
            output, hidden = self.gru(embedded)
            return output, hidden

    class BahdanauAttention(nn.Module):
        def __init__(self, hidden_size):
            super(BahdanauAttention, self).__init__()
            self.Wa = nn.Linear(hidden_size, hidden_size)
            self.Ua = nn.Linear(hidden_size, hidden_size)
            self.Va = nn.Linear(hidden_size, 1)

        def forward(self, query, keys):
            scores = self.Va(torch.tanh(self.Wa(query) + self.Ua(keys)))
            scores = scores.squeeze(2).unsqueeze(1)
            weights = F.softmax(scores, dim=-1)
            context = torch.bmm(weights, keys)
            return context, weights

    class AttnDecoderRNN(nn.Module):
        def __init__(self, hidden_size, output_size, dropout_p=0.1):
            super(AttnDecoderRNN, self).__init__()
            self.embedding = nn.Embedding(output_size, hidden_size)
            self.attention = BahdanauAttention(hidden_size)
            self.gru = nn.GRU(2 * hidden_size, hidden_size, batch_first=True)
            self.out = nn.Linear(hidden_size, output_size)
            self.dropout = nn.Dropout(dropout_p)

        def forward(self, encoder_outputs, encoder_hidden, target_tensor=None):
            batch_size = encoder_outputs.size(0)
            decoder_input = torch.empty(batch_size, 1, dtype=torch.long, device=device).fill_(SOS_token)
            decoder_hidden = encoder_hidden
            decoder_outputs, attentions = [], []
            for i in range(MAX_LENGTH):
                decoder_output, decoder_hidden, attn_weights = self.forward_step(
                    decoder_input, decoder_hidden, encoder_outputs)
                decoder_outputs.append(decoder_output)
                attentions.append(attn_weights)
                if target_tensor is not None:
                    decoder_input = target_tensor[:, i].unsqueeze(1)  # teacher forcing
                else:
                    _, topi = decoder_output.topk(1)
                    decoder_input = topi.squeeze(-1).detach()
            decoder_outputs = F.log_softmax(torch.cat(decoder_outputs, dim=1), dim=-1)
            return decoder_outputs, decoder_hidden, torch.cat(attentions, dim=1)

        def forward_step(self, input, hidden, encoder_outputs):
            embedded = self.dropout(self.embedding(input))
            query = hidden.permute(1, 0, 2)
            context, attn_weights = self.attention(query, encoder_outputs)
            input_gru = torch.cat((embedded, context), dim=2)
            output, hidden = self.gru(input_gru, hidden)
            return self.out(output), hidden, attn_weights

    def indexesFromSentence(lang, sentence):
        return [lang.word2index[word] for word in sentence.split(" ")]

    def tensorFromSentence(lang, sentence):
        indexes = indexesFromSentence(lang, sentence)
        indexes.append(EOS_token)
        return torch.tensor(indexes, dtype=torch.long, device=device).view(1, -1)

    n = len(PAIRS)
    input_ids = np.zeros((n, MAX_LENGTH), dtype=np.int32)
    target_ids = np.zeros((n, MAX_LENGTH), dtype=np.int32)
    for idx, (inp, tgt) in enumerate(PAIRS):
        inp_ids = indexesFromSentence(input_lang, inp) + [EOS_token]
        tgt_ids = indexesFromSentence(output_lang, tgt) + [EOS_token]
        input_ids[idx, :len(inp_ids)] = inp_ids
        target_ids[idx, :len(tgt_ids)] = tgt_ids
    train_data = data.TensorDataset(torch.LongTensor(input_ids).to(device), torch.LongTensor(target_ids).to(device))
    smp = data.RandomSampler(train_data) if sampler == "random" else data.SequentialSampler(train_data)
    dataloader = data.DataLoader(train_data, sampler=smp, batch_size=batch_size)

    encoder = EncoderRNN(input_lang.n_words, hidden_size, dropout).to(device)
    decoder = AttnDecoderRNN(hidden_size, output_lang.n_words, dropout).to(device)
    if init is not None:
        encoder.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in init["encoder"].items()})
        decoder.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in init["decoder"].items()})
    start = {name: {k: v.detach().cpu().numpy().copy() for k, v in m.state_dict().items()}
             for name, m in (("encoder", encoder), ("decoder", decoder))}
    encoder_optimizer = optim.Adam(encoder.parameters(), lr=0.01)
    decoder_optimizer = optim.Adam(decoder.parameters(), lr=0.01)
    criterion = nn.NLLLoss()
    losses = []
    for epoch in range(1, epochs + 1):
        total_loss = 0
        for input_tensor, target_tensor in dataloader:
            encoder_optimizer.zero_grad()
            decoder_optimizer.zero_grad()
            encoder_outputs, encoder_hidden = encoder(input_tensor)
            decoder_outputs, _, _ = decoder(encoder_outputs, encoder_hidden, target_tensor)
            loss = criterion(decoder_outputs.view(-1, decoder_outputs.size(-1)), target_tensor.view(-1))
            loss.backward()
            encoder_optimizer.step()
            decoder_optimizer.step()
            total_loss += loss.item()
        losses.append(total_loss / len(dataloader))

    encoder.eval()
    decoder.eval()
    with torch.no_grad():
        encoder_outputs, encoder_hidden = encoder(tensorFromSentence(input_lang, "je suis froid"))
        decoder_outputs, decoder_hidden, decoder_attn = decoder(encoder_outputs, encoder_hidden)
        _, topi = decoder_outputs.topk(1)
        decoded_words = []
        for idx in topi.squeeze():
            if idx.item() == EOS_token:
                decoded_words.append("<EOS>")
                break
            decoded_words.append(output_lang.index2word[idx.item()])
    return {"losses": losses, "words": decoded_words, "attn_shape": tuple(decoder_attn.shape), "init": start}

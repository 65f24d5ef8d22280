"""Source: widely copied community training programs, in small on synthetic data (numpy, the same for
every framework): bentrevett/pytorch-sentiment-analysis (packed bidirectional LSTM with pretrained
embeddings copied into embedding.weight.data, the CNN over (fs, emb_dim) kernels with max_pool1d, FastText
with avg_pool2d), a tabular MLP with categorical embeddings (fastai style: ModuleList of Embedding,
embedding dropout, BatchNorm1d on continuous columns, BCEWithLogitsLoss(pos_weight), WeightedRandomSampler),
an LSTM time-series forecaster on sliding windows with a hand-written min-max scaler, the data loading
tutorial's Dataset with callable transforms (torch.is_tensor(idx), idx.tolist()) and a custom collate_fn,
the char_rnn_generation tutorial (category + input + hidden cat, i2h/i2o/o2o, dropout, LongTensor
targets unsqueeze_(-1), p.data.add_(p.grad.data, alpha=-lr)), and extending autograd (a Function with
ctx.needs_input_grad, mark_non_differentiable, once_differentiable and gradcheck).

run(torch, init=None) -> dict(out={stage: values}, init=...)."""
import importlib
import random
from collections import defaultdict

import numpy as np

from . import same_start


def sentiment(torch, start, out, rng):
    nn, F = torch.nn, torch.nn.functional
    V, EMB, PAD, UNK = 40, 16, 1, 0
    lengths = rng.integers(3, 9, 24)
    text = np.full((24, 8), PAD)
    for i, n in enumerate(lengths):
        text[i, :n] = rng.integers(2, V, n)
    label = ((text == 5).sum(1) + (text == 7).sum(1) > 0).astype(np.float32)
    text = torch.from_numpy(start.setdefault("st_text", text))
    lengths = torch.from_numpy(start.setdefault("st_len", lengths))
    label = torch.from_numpy(start.setdefault("st_label", label))
    pretrained = torch.from_numpy(start.setdefault("st_vec", rng.standard_normal((V, EMB)).astype(np.float32)))

    class RNN(nn.Module):
        def __init__(self, vocab_size, embedding_dim, hidden_dim, output_dim, n_layers, bidirectional, dropout, pad_idx):
            super().__init__()
            self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=pad_idx)
            self.rnn = nn.LSTM(embedding_dim, hidden_dim, num_layers=n_layers, bidirectional=bidirectional,
                               dropout=dropout)
            self.fc = nn.Linear(hidden_dim * 2, output_dim)
            self.dropout = nn.Dropout(dropout)

        def forward(self, text, text_lengths):
            embedded = self.dropout(self.embedding(text))
            packed_embedded = nn.utils.rnn.pack_padded_sequence(embedded, text_lengths.to('cpu'), enforce_sorted=False)
            packed_output, (hidden, cell) = self.rnn(packed_embedded)
            output, output_lengths = nn.utils.rnn.pad_packed_sequence(packed_output)
            hidden = self.dropout(torch.cat((hidden[-2, :, :], hidden[-1, :, :]), dim=1))
            return self.fc(hidden), output

    class CNN(nn.Module):
        def __init__(self, vocab_size, embedding_dim, n_filters, filter_sizes, output_dim, dropout, pad_idx):
            super().__init__()
            self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=pad_idx)
            self.convs = nn.ModuleList([nn.Conv2d(in_channels=1, out_channels=n_filters,
                                                  kernel_size=(fs, embedding_dim)) for fs in filter_sizes])
            self.fc = nn.Linear(len(filter_sizes) * n_filters, output_dim)
            self.dropout = nn.Dropout(dropout)

        def forward(self, text):
            embedded = self.embedding(text).unsqueeze(1)
            conved = [F.relu(conv(embedded)).squeeze(3) for conv in self.convs]
            pooled = [F.max_pool1d(conv, conv.shape[2]).squeeze(2) for conv in conved]
            cat = self.dropout(torch.cat(pooled, dim=1))
            return self.fc(cat)

    class FastText(nn.Module):
        def __init__(self, vocab_size, embedding_dim, output_dim, pad_idx):
            super().__init__()
            self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=pad_idx)
            self.fc = nn.Linear(embedding_dim, output_dim)

        def forward(self, text):
            embedded = self.embedding(text).permute(1, 0, 2)
            pooled = F.avg_pool2d(embedded, (embedded.shape[1], 1)).squeeze(1)
            return self.fc(pooled)

    def count_parameters(model):
        return sum(p.numel() for p in model.parameters() if p.requires_grad)

    def binary_accuracy(preds, y):
        rounded_preds = torch.round(torch.sigmoid(preds))
        correct = (rounded_preds == y).float()
        return correct.sum() / len(correct)

    for kind in ("rnn", "cnn", "fasttext"):
        if kind == "rnn":
            model = RNN(V, EMB, 12, 1, 2, True, 0.0, PAD)
        elif kind == "cnn":
            model = CNN(V, EMB, 6, [2, 3], 1, 0.0, PAD)
        else:
            model = FastText(V, EMB, 1, PAD)
        model.embedding.weight.data.copy_(pretrained)
        model.embedding.weight.data[UNK] = torch.zeros(EMB)
        model.embedding.weight.data[PAD] = torch.zeros(EMB)
        same_start(torch, start, "st_" + kind, model)
        out["n_params"].append(count_parameters(model))
        optimizer = torch.optim.Adam(model.parameters())
        criterion = nn.BCEWithLogitsLoss()
        model.train()
        for epoch in range(5):
            optimizer.zero_grad()
            if kind == "rnn":
                predictions, padded = model(text.t(), lengths)
                out["padded_shape"] = list(padded.shape)
            elif kind == "cnn":
                predictions = model(text)
            else:
                predictions = model(text.t())
            predictions = predictions.squeeze(1)
            loss = criterion(predictions, label)
            acc = binary_accuracy(predictions, label)
            loss.backward()
            optimizer.step()
            out["st_" + kind].append(loss.item())
            out["st_acc_" + kind].append(acc.item())
        out["pad_row"].append(float(model.embedding.weight[PAD].detach().abs().sum()))


def tabular(torch, start, out, rng):
    nn = torch.nn
    n = 96
    cats = np.stack([rng.integers(0, 4, n), rng.integers(0, 7, n)], 1)
    conts = rng.standard_normal((n, 3)).astype(np.float32)
    y = ((conts[:, 0] + (cats[:, 0] == 2)) > 0.8).astype(np.float32)
    cats = torch.from_numpy(start.setdefault("tab_cats", cats))
    conts = torch.FloatTensor(start.setdefault("tab_conts", conts))
    y = torch.tensor(start.setdefault("tab_y", y), dtype=torch.float32).reshape(-1, 1)
    emb_szs = [(4, 2), (7, 4)]

    class TabularModel(nn.Module):
        def __init__(self, emb_szs, n_cont, out_sz, layers, p=0.0):
            super().__init__()
            self.embeds = nn.ModuleList([nn.Embedding(ni, nf) for ni, nf in emb_szs])
            self.emb_drop = nn.Dropout(p)
            self.bn_cont = nn.BatchNorm1d(n_cont)
            layerlist = []
            n_emb = sum((nf for ni, nf in emb_szs))
            n_in = n_emb + n_cont
            for i in layers:
                layerlist.append(nn.Linear(n_in, i))
                layerlist.append(nn.ReLU(inplace=True))
                layerlist.append(nn.BatchNorm1d(i))
                layerlist.append(nn.Dropout(p))
                n_in = i
            layerlist.append(nn.Linear(layers[-1], out_sz))
            self.layers = nn.Sequential(*layerlist)

        def forward(self, x_cat, x_cont):
            embeddings = []
            for i, e in enumerate(self.embeds):
                embeddings.append(e(x_cat[:, i]))
            x = torch.cat(embeddings, 1)
            x = self.emb_drop(x)
            x_cont = self.bn_cont(x_cont)
            x = torch.cat([x, x_cont], 1)
            return self.layers(x)

    model = same_start(torch, start, "tab", TabularModel(emb_szs, conts.shape[1], 1, [16, 8]))
    pos_weight = torch.tensor([(y == 0).sum().item() / max((y == 1).sum().item(), 1)])
    criterion = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    for i in range(15):
        model.train()
        y_pred = model(cats, conts)
        loss = criterion(y_pred, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        out["tabular"].append(loss.item())
    model.eval()
    with torch.no_grad():
        probs = torch.sigmoid(model(cats, conts))
        preds = (probs > 0.5).float()
        tp = ((preds == 1) & (y == 1)).sum().item()
        out["tab_metrics"] = [(preds == y).float().mean().item(), tp]
    class_counts = torch.bincount(y.long().flatten())
    weights = 1.0 / class_counts.float()
    sample_weights = weights[y.long().flatten()]
    sampler = torch.utils.data.WeightedRandomSampler(sample_weights, num_samples=len(sample_weights), replacement=True)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(cats, conts, y), batch_size=32, sampler=sampler)
    out["sampled"] = [sum(len(b[0]) for b in loader), len(sampler)]


def time_series(torch, start, out, rng):
    nn = torch.nn
    t = np.arange(200, dtype=np.float32)
    series = np.sin(t * 0.1) * 10 + 20 + rng.standard_normal(200).astype(np.float32) * 0.3
    lo, hi = series.min(), series.max()
    scaled = (series - lo) / (hi - lo)

    def create_sequences(data, seq_length):
        xs, ys = [], []
        for i in range(len(data) - seq_length):
            xs.append(data[i:(i + seq_length)])
            ys.append(data[i + seq_length])
        return np.array(xs), np.array(ys)

    X, Y = create_sequences(scaled, 12)
    X_train = torch.from_numpy(X[:150]).float().unsqueeze(-1)
    y_train = torch.from_numpy(Y[:150]).float().unsqueeze(-1)
    X_test = torch.from_numpy(X[150:]).float().unsqueeze(-1)

    class LSTMForecaster(nn.Module):
        def __init__(self, input_size=1, hidden_layer_size=16, output_size=1):
            super().__init__()
            self.hidden_layer_size = hidden_layer_size
            self.lstm = nn.LSTM(input_size, hidden_layer_size, batch_first=True, num_layers=2)
            self.linear = nn.Linear(hidden_layer_size, output_size)

        def forward(self, input_seq):
            h0 = torch.zeros(2, input_seq.size(0), self.hidden_layer_size)
            c0 = torch.zeros(2, input_seq.size(0), self.hidden_layer_size)
            lstm_out, _ = self.lstm(input_seq, (h0, c0))
            return self.linear(lstm_out[:, -1, :])

    model = same_start(torch, start, "ts", LSTMForecaster())
    loss_function = nn.MSELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(X_train, y_train), batch_size=50,
                                         shuffle=False)
    for epoch in range(6):
        model.train()
        for seq, labels in loader:
            optimizer.zero_grad()
            y_pred = model(seq)
            single_loss = loss_function(y_pred, labels)
            single_loss.backward()
            optimizer.step()
        out["ts"].append(single_loss.item())
    model.eval()
    with torch.no_grad():
        preds = model(X_test).squeeze().numpy() * (hi - lo) + lo
    out["ts_pred"] = preds[:5].tolist()


def data_loading(torch, start, out, rng):
    class FaceLandmarksDataset(torch.utils.data.Dataset):
        def __init__(self, frame, images, transform=None):
            self.landmarks_frame = frame
            self.images = images
            self.transform = transform

        def __len__(self):
            return len(self.landmarks_frame)

        def __getitem__(self, idx):
            if torch.is_tensor(idx):
                idx = idx.tolist()
            image = self.images[idx]
            landmarks = np.array([self.landmarks_frame[idx]], dtype=float).reshape(-1, 2)
            sample = {'image': image, 'landmarks': landmarks}
            if self.transform:
                sample = self.transform(sample)
            return sample

    class RandomCrop:
        def __init__(self, output_size):
            self.output_size = (output_size, output_size) if isinstance(output_size, int) else output_size

        def __call__(self, sample):
            image, landmarks = sample['image'], sample['landmarks']
            new_h, new_w = self.output_size
            top, left = 1, 2
            image = image[top: top + new_h, left: left + new_w]
            return {'image': image, 'landmarks': landmarks - [left, top]}

    class ToTensor:
        def __call__(self, sample):
            image, landmarks = sample['image'], sample['landmarks']
            image = image.transpose((2, 0, 1))
            return {'image': torch.from_numpy(image), 'landmarks': torch.from_numpy(landmarks)}

    class Compose:
        def __init__(self, transforms):
            self.transforms = transforms

        def __call__(self, x):
            for t in self.transforms:
                x = t(x)
            return x

    images = rng.random((10, 12, 12, 3))
    frame = rng.random((10, 6)) * 10
    ds = FaceLandmarksDataset(frame, images, transform=Compose([RandomCrop(8), ToTensor()]))
    s = ds[torch.tensor(3)]
    out["dl_sample"] = [list(s['image'].shape), str(s['image'].dtype).split(".")[-1], list(s['landmarks'].shape)]
    loader = torch.utils.data.DataLoader(ds, batch_size=4, shuffle=False, num_workers=0)
    for i_batch, sample_batched in enumerate(loader):
        out["dl_batches"].append([list(sample_batched['image'].size()), list(sample_batched['landmarks'].size())])
    out["dl_sum"] = [float(sample_batched['landmarks'].sum())]

    def collate(batch):
        imgs = torch.stack([b['image'] for b in batch])
        lms = [b['landmarks'] for b in batch]
        return imgs, lms

    imgs, lms = next(iter(torch.utils.data.DataLoader(ds, batch_size=3, collate_fn=collate)))
    out["dl_collate"] = [list(imgs.shape), len(lms)]
    sub = torch.utils.data.Subset(ds, [1, 3, 5])
    cat = torch.utils.data.ConcatDataset([sub, sub])
    out["dl_concat"] = [len(cat), float(cat[4]['landmarks'].sum())]


def char_rnn_generation(torch, start, out, rng):
    nn = torch.nn
    import string
    all_letters = string.ascii_letters + " .,;'-"
    n_letters = len(all_letters) + 1
    categories = ["Scottish", "Greek"]
    lines = {"Scottish": ["Smith", "Brown", "Wilson", "Campbell"], "Greek": ["Pappas", "Nikolaidis", "Kouris"]}
    n_categories = len(categories)

    class RNN(nn.Module):
        def __init__(self, input_size, hidden_size, output_size):
            super().__init__()
            self.hidden_size = hidden_size
            self.i2h = nn.Linear(n_categories + input_size + hidden_size, hidden_size)
            self.i2o = nn.Linear(n_categories + input_size + hidden_size, output_size)
            self.o2o = nn.Linear(hidden_size + output_size, output_size)
            self.dropout = nn.Dropout(0.1)
            self.softmax = nn.LogSoftmax(dim=1)

        def forward(self, category, input, hidden):
            input_combined = torch.cat((category, input, hidden), 1)
            hidden = self.i2h(input_combined)
            output = self.i2o(input_combined)
            output_combined = torch.cat((hidden, output), 1)
            output = self.o2o(output_combined)
            output = self.dropout(output)
            output = self.softmax(output)
            return output, hidden

        def initHidden(self):
            return torch.zeros(1, self.hidden_size)

    def categoryTensor(category):
        li = categories.index(category)
        tensor = torch.zeros(1, n_categories)
        tensor[0][li] = 1
        return tensor

    def inputTensor(line):
        tensor = torch.zeros(len(line), 1, n_letters)
        for li in range(len(line)):
            letter = line[li]
            tensor[li][0][all_letters.find(letter)] = 1
        return tensor

    def targetTensor(line):
        letter_indexes = [all_letters.find(line[li]) for li in range(1, len(line))]
        letter_indexes.append(n_letters - 1)
        return torch.LongTensor(letter_indexes)

    rnn = same_start(torch, start, "gen", RNN(n_letters, 32, n_letters))
    rnn.eval()  # (dropout off: the frameworks' random streams differ)
    criterion = nn.NLLLoss()
    learning_rate = 0.005
    pairs = [(c, l) for c in categories for l in lines[c]]

    def train(category_tensor, input_line_tensor, target_line_tensor):
        target_line_tensor.unsqueeze_(-1)
        hidden = rnn.initHidden()
        rnn.zero_grad()
        loss = torch.Tensor([0])
        for i in range(input_line_tensor.size(0)):
            output, hidden = rnn(category_tensor, input_line_tensor[i], hidden)
            l = criterion(output, target_line_tensor[i])
            loss += l
        loss.backward()
        for p in rnn.parameters():
            p.data.add_(p.grad.data, alpha=-learning_rate)
        return output, loss.item() / input_line_tensor.size(0)

    for it in range(14):
        category, line = pairs[it % len(pairs)]
        output, loss = train(categoryTensor(category), inputTensor(line), targetTensor(line))
        out["gen"].append(loss)

    def sample(category, start_letter='A', max_length=8):
        with torch.no_grad():
            category_tensor = categoryTensor(category)
            input = inputTensor(start_letter)
            hidden = rnn.initHidden()
            output_name = start_letter
            for i in range(max_length):
                output, hidden = rnn(category_tensor, input[0], hidden)
                topv, topi = output.topk(1)
                topi = topi[0][0]
                if topi == n_letters - 1:
                    break
                else:
                    letter = all_letters[topi]
                    output_name += letter
                input = inputTensor(letter)
            return output_name

    out["gen_samples"] = [sample("Greek", "P"), sample("Scottish", "S")]


def extending_autograd(torch, start, out, rng):
    Function = torch.autograd.Function
    once_differentiable = importlib.import_module(torch.__name__ + ".autograd.function").once_differentiable

    class LinearFunction(Function):
        @staticmethod
        def forward(ctx, input, weight, bias=None):
            ctx.save_for_backward(input, weight, bias)
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        @staticmethod
        def backward(ctx, grad_output):
            input, weight, bias = ctx.saved_tensors
            grad_input = grad_weight = grad_bias = None
            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)
            return grad_input, grad_weight, grad_bias

    class SortWithIndex(Function):
        @staticmethod
        def forward(ctx, x):
            values, idx = x.sort()
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(idx)
            return values, idx

        @staticmethod
        @once_differentiable
        def backward(ctx, g, _):
            idx, = ctx.saved_tensors
            grad = torch.zeros_like(g)
            grad.scatter_(0, idx, g)
            return grad

    class MulConstant(Function):
        @staticmethod
        def forward(ctx, tensor, constant):
            ctx.constant = constant
            return tensor * constant

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.constant, None

    linear = LinearFunction.apply
    inp = (torch.from_numpy(rng.standard_normal((5, 4))).requires_grad_(),
           torch.from_numpy(rng.standard_normal((3, 4))).requires_grad_(),
           torch.from_numpy(rng.standard_normal(3)).requires_grad_())
    out["gradcheck"] = [bool(torch.autograd.gradcheck(linear, inp, eps=1e-6, atol=1e-4))]
    x = torch.from_numpy(rng.standard_normal(6)).requires_grad_()
    v, idx = SortWithIndex.apply(x)
    (v * torch.arange(6, dtype=v.dtype)).sum().backward()
    out["sort_fn"] = x.grad.tolist() + [idx.requires_grad, v.requires_grad]
    y = MulConstant.apply(x, 2.5)
    out["mul_const"] = [y.grad_fn is not None, float(y.sum())]
    w = torch.from_numpy(rng.standard_normal((3, 4))).requires_grad_()
    b = torch.zeros(3, dtype=torch.float64, requires_grad=False)
    o = linear(inp[0].detach(), w, b)
    o.pow(2).sum().backward()
    out["needs_grad"] = w.grad.reshape(-1).tolist() + [b.grad is None]


def run(torch, init=None, seed=0):
    torch.manual_seed(seed)
    random.seed(seed)
    start = {} if init is None else init
    out = defaultdict(list)
    rng = np.random.default_rng(seed)
    for stage in (sentiment, tabular, time_series, data_loading, char_rnn_generation, extending_autograd):
        stage(torch, start, out, rng)
    return dict(out=dict(out), init=start)

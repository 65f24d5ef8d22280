"""Source: pytorch/tutorials beginner_source/transfer_learning_tutorial.py (fine-tuning and the
fixed-feature-extractor variants: requires_grad = False on a pretrained backbone, model.fc replaced by a
new Linear(num_ftrs, 2), StepLR, train/val phases under torch.set_grad_enabled(phase == 'train'), the
best weights kept with copy.deepcopy(model.state_dict()), running_corrects.double() / dataset size) and
beginner_source/text_sentiment_ngrams_tutorial.py (EmbeddingBag with offsets from cumsum,
init_weights with uniform_/zero_, collate_batch, random_split, SGD + StepLR(1.0, gamma=0.1) stepped when
validation accuracy stalls, clip_grad_norm_(0.1)), in small on synthetic data. A small CNN stands in for
torchvision's ResNet-18 (its children: conv, bn, relu, pool, fc).

run(torch, init=None) -> dict(out={...}, init=...)."""
import copy
from collections import defaultdict

import numpy as np


def run(torch, init=None, seed=0):
    nn, optim = torch.nn, torch.optim
    lr_scheduler = torch.optim.lr_scheduler
    torch.manual_seed(seed)
    start = {} if init is None else init
    out = defaultdict(list)
    rng = np.random.default_rng(seed)

    class TinyResNet(nn.Module):
        def __init__(self, num_classes=10):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 8, 3, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(8)
            self.relu = nn.ReLU(inplace=True)
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(8, num_classes)

        def forward(self, x):
            x = self.avgpool(self.relu(self.bn1(self.conv1(x))))
            return self.fc(torch.flatten(x, 1))

    imgs = rng.standard_normal((2, 24, 3, 8, 8)).astype(np.float32)
    labels = (imgs[:, :, 0].mean((2, 3)) > 0).astype(np.int64)
    dataloaders = {phase: [(torch.from_numpy(imgs[k, i:i + 8]), torch.from_numpy(labels[k, i:i + 8]))
                           for i in range(0, 24, 8)] for k, phase in enumerate(("train", "val"))}
    dataset_sizes = {"train": 24, "val": 24}

    def train_model(model, criterion, optimizer, scheduler, num_epochs, key):
        best_model_wts = copy.deepcopy(model.state_dict())
        best_acc = 0.0
        for epoch in range(num_epochs):
            for phase in ['train', 'val']:
                if phase == 'train':
                    model.train()
                else:
                    model.eval()
                running_loss = 0.0
                running_corrects = 0
                for inputs, labels_ in dataloaders[phase]:
                    optimizer.zero_grad()
                    with torch.set_grad_enabled(phase == 'train'):
                        outputs = model(inputs)
                        _, preds = torch.max(outputs, 1)
                        loss = criterion(outputs, labels_)
                        if phase == 'train':
                            loss.backward()
                            optimizer.step()
                    running_loss += loss.item() * inputs.size(0)
                    running_corrects += torch.sum(preds == labels_.data)
                if phase == 'train':
                    scheduler.step()
                epoch_loss = running_loss / dataset_sizes[phase]
                epoch_acc = running_corrects.double() / dataset_sizes[phase]
                out[key + "_" + phase].append(epoch_loss)
                out[key + "_acc"].append(float(epoch_acc))
                out["acc_dtype"] = [str(epoch_acc.dtype).split(".")[-1]]
                if phase == 'val' and epoch_acc > best_acc:
                    best_acc = epoch_acc
                    best_model_wts = copy.deepcopy(model.state_dict())
        model.load_state_dict(best_model_wts)
        out[key + "_best"] = [float(best_acc)]
        return model

    pretrained = TinyResNet()
    if "pre" in start:
        pretrained.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in start["pre"].items()})
    else:
        start["pre"] = {k: v.detach().numpy().copy() for k, v in pretrained.state_dict().items()}
    criterion = nn.CrossEntropyLoss()
    for key in ("finetune", "fixed"):
        model_ft = copy.deepcopy(pretrained)
        if key == "fixed":
            for param in model_ft.parameters():
                param.requires_grad = False
        num_ftrs = model_ft.fc.in_features
        model_ft.fc = nn.Linear(num_ftrs, 2)
        if "fc_" + key in start:
            model_ft.fc.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in start["fc_" + key].items()})
        else:
            start["fc_" + key] = {k: v.detach().numpy().copy() for k, v in model_ft.fc.state_dict().items()}
        params = model_ft.parameters() if key == "finetune" else model_ft.fc.parameters()
        optimizer_ft = optim.SGD(params, lr=0.05, momentum=0.9)
        exp_lr_scheduler = lr_scheduler.StepLR(optimizer_ft, step_size=2, gamma=0.1)
        train_model(model_ft, criterion, optimizer_ft, exp_lr_scheduler, num_epochs=3, key=key)
        out[key + "_trainable"] = [sum(p.numel() for p in model_ft.parameters() if p.requires_grad)]

    # ---- text classification with EmbeddingBag
    vocab_size, num_class, emsize = 30, 3, 8
    docs = [rng.integers(0, vocab_size, rng.integers(3, 9)).tolist() for _ in range(36)]
    doc_labels = [int(d[0] % 3) for d in docs]
    start.setdefault("docs", (docs, doc_labels))
    docs, doc_labels = start["docs"]

    class TextClassificationModel(nn.Module):
        def __init__(self, vocab_size, embed_dim, num_class):
            super().__init__()
            self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, sparse=False)
            self.fc = nn.Linear(embed_dim, num_class)
            self.init_weights()

        def init_weights(self):
            initrange = 0.5
            self.embedding.weight.data.uniform_(-initrange, initrange)
            self.fc.weight.data.uniform_(-initrange, initrange)
            self.fc.bias.data.zero_()

        def forward(self, text, offsets):
            embedded = self.embedding(text, offsets)
            return self.fc(embedded)

    def collate_batch(batch):
        label_list, text_list, offsets = [], [], [0]
        for _label, _text in batch:
            label_list.append(_label)
            processed_text = torch.tensor(_text, dtype=torch.int64)
            text_list.append(processed_text)
            offsets.append(processed_text.size(0))
        label_list = torch.tensor(label_list, dtype=torch.int64)
        offsets = torch.tensor(offsets[:-1]).cumsum(dim=0)
        text_list = torch.cat(text_list)
        return label_list, text_list, offsets

    model = TextClassificationModel(vocab_size, emsize, num_class)
    if "text" in start:
        model.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in start["text"].items()})
    else:
        start["text"] = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    criterion = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=5)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.1)
    pairs = list(zip(doc_labels, docs))
    train_dataloader = torch.utils.data.DataLoader(pairs[:24], batch_size=8, shuffle=False, collate_fn=collate_batch)
    valid_dataloader = torch.utils.data.DataLoader(pairs[24:], batch_size=8, shuffle=False, collate_fn=collate_batch)
    total_accu = None
    for epoch in range(4):
        model.train()
        for idx, (label, text, offsets) in enumerate(train_dataloader):
            optimizer.zero_grad()
            predicted_label = model(text, offsets)
            loss = criterion(predicted_label, label)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
            optimizer.step()
            out["text_loss"].append(loss.item())
        model.eval()
        total_acc, total_count = 0, 0
        with torch.no_grad():
            for idx, (label, text, offsets) in enumerate(valid_dataloader):
                predicted_label = model(text, offsets)
                total_acc += (predicted_label.argmax(1) == label).sum().item()
                total_count += label.size(0)
        accu_val = total_acc / total_count
        if total_accu is not None and total_accu > accu_val:
            scheduler.step()
        else:
            total_accu = accu_val
        out["text_val"].append(accu_val)
        out["text_lr"].append(scheduler.get_last_lr()[0])
    return dict(out=dict(out), init=start)

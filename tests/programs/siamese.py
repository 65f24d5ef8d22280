"""pytorch/examples siamese_network in small: a ResNet-style backbone with its first conv replaced
and its fc dropped through nn.Sequential(*list(children())[:-1]), twin branches concatenated,
xavier_uniform_ + bias.data.fill_(0.01) through apply, BCELoss on a Sigmoid, Adadelta with StepLR,
a pair Dataset grouping examples by class, torch.where(outputs > 0.5, 1, 0) accuracy."""
import numpy as np

from .imagenet_resnet import build as build_resnet


def make_digits(n, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, n)
    x = rng.standard_normal((n, 1, 16, 16)).astype(np.float32) * 0.3
    for i in range(n):
        c = int(y[i])
        x[i, 0, 2 + 3 * c: 5 + 3 * c, 2:14] += 1.5
    return x, y


def run(torch, init=None, seed=1, epochs=2, n=48):
    nn = torch.nn
    F = nn.functional
    Dataset = torch.utils.data.Dataset
    torch.manual_seed(seed)

    class SiameseNetwork(nn.Module):
        def __init__(self):
            super().__init__()
            self.resnet = build_resnet(torch)
            self.resnet.conv1 = nn.Conv2d(1, 8, kernel_size=(7, 7), stride=(2, 2), padding=(3, 3), bias=False)
            self.fc_in_features = self.resnet.fc.in_features
            self.resnet = torch.nn.Sequential(*(list(self.resnet.children())[:-1]))
            self.fc = nn.Sequential(
                nn.Linear(self.fc_in_features * 2, 32),
                nn.ReLU(inplace=True),
                nn.Linear(32, 1),
            )
            self.sigmoid = nn.Sigmoid()
            self.resnet.apply(self.init_weights)
            self.fc.apply(self.init_weights)

        def init_weights(self, m):
            if isinstance(m, nn.Linear):
                torch.nn.init.xavier_uniform_(m.weight)
                m.bias.data.fill_(0.01)

        def forward_once(self, x):
            output = self.resnet(x)
            output = output.view(output.size()[0], -1)
            return output

        def forward(self, input1, input2):
            output1 = self.forward_once(input1)
            output2 = self.forward_once(input2)
            output = torch.cat((output1, output2), 1)
            output = self.fc(output)
            output = self.sigmoid(output)
            return output

    class PairDataset(Dataset):
        def __init__(self, x, y, seed):
            self.x, self.y = x, y
            self.rng = np.random.default_rng(seed)
            self.group_examples()
            self.pairs = [self.make_pair(i) for i in range(len(y))]

        def group_examples(self):
            np_arr = np.array(self.y)
            self.grouped_examples = {}
            for i in range(0, 4):
                self.grouped_examples[i] = np.where((np_arr == i))[0]

        def make_pair(self, index):
            selected_class = int(self.rng.integers(0, 4))
            random_index_1 = int(self.rng.integers(0, self.grouped_examples[selected_class].shape[0]))
            index_1 = self.grouped_examples[selected_class][random_index_1]
            if index % 2 == 0:
                random_index_2 = int(self.rng.integers(0, self.grouped_examples[selected_class].shape[0]))
                index_2 = self.grouped_examples[selected_class][random_index_2]
                target = 1.0
            else:
                other_selected_class = int(self.rng.integers(0, 4))
                while other_selected_class == selected_class:
                    other_selected_class = int(self.rng.integers(0, 4))
                random_index_2 = int(self.rng.integers(0, self.grouped_examples[other_selected_class].shape[0]))
                index_2 = self.grouped_examples[other_selected_class][random_index_2]
                target = 0.0
            return index_1, index_2, target

        def __len__(self):
            return len(self.pairs)

        def __getitem__(self, index):
            i1, i2, t = self.pairs[index]
            image_1 = torch.from_numpy(self.x[i1].copy())
            image_2 = torch.clone(torch.from_numpy(self.x[i2].copy()))
            return image_1, image_2, torch.tensor(t, dtype=torch.float)

    model = SiameseNetwork()
    start = {} if init is None else init
    if "model" in start:
        model.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in start["model"].items()})
    else:
        start["model"] = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    x, y = make_digits(n, seed)
    train_loader = torch.utils.data.DataLoader(PairDataset(x, y, seed), batch_size=8, shuffle=False)
    test_loader = torch.utils.data.DataLoader(PairDataset(*make_digits(24, seed + 5), seed + 5), batch_size=8)
    optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
    criterion = nn.BCELoss()
    losses, tests = [], []
    for epoch in range(1, epochs + 1):
        model.train()
        for batch_idx, (images_1, images_2, targets) in enumerate(train_loader):
            optimizer.zero_grad()
            outputs = model(images_1, images_2).squeeze()
            loss = criterion(outputs, targets)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        model.eval()
        test_loss, correct = 0, 0
        with torch.no_grad():
            for (images_1, images_2, targets) in test_loader:
                outputs = model(images_1, images_2).squeeze()
                test_loss += criterion(outputs, targets).sum().item()
                pred = torch.where(outputs > 0.5, 1, 0)
                correct += pred.eq(targets.view_as(pred)).sum().item()
        tests.append((test_loss / len(test_loader.dataset), correct))
        scheduler.step()
    return dict(init=start, losses=losses, tests=tests)

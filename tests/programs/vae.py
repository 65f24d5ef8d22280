"""A variational autoencoder in the manner of the classic VAE example
(784-400-20): fc1 -> (mu, logvar), the reparameterisation trick with
randn_like, a sigmoid decoder, BCE (summed) + KL divergence, Adam, a
DataLoader over a TensorDataset of small synthetic "images" in [0, 1], a
no_grad test pass and decoding of random latent samples.

run(torch, ...) -> dict(losses=[per-sample train loss per batch], test=..., init=...)."""
import numpy as np


def make_images(n, seed):
    """Blurry blobs on a 28x28 grid in [0, 1] (numpy: the same data for every framework)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:28, 0:28]
    cy, cx = rng.uniform(6, 22, (2, n, 1, 1))
    r = rng.uniform(2, 6, (n, 1, 1))
    img = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * r ** 2))
    return img.reshape(n, 1, 28, 28).astype(np.float32)


def build(torch):
    nn = torch.nn
    F = torch.nn.functional

    class VAE(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(784, 400)
            self.fc21 = nn.Linear(400, 20)
            self.fc22 = nn.Linear(400, 20)
            self.fc3 = nn.Linear(20, 400)
            self.fc4 = nn.Linear(400, 784)

        def encode(self, x):
            h1 = F.relu(self.fc1(x))
            return self.fc21(h1), self.fc22(h1)

        def reparameterize(self, mu, logvar):
            std = torch.exp(0.5 * logvar)
            eps = torch.randn_like(std)
            return mu + eps * std

        def decode(self, z):
            h3 = F.relu(self.fc3(z))
            return torch.sigmoid(self.fc4(h3))

        def forward(self, x):
            mu, logvar = self.encode(x.view(-1, 784))
            z = self.reparameterize(mu, logvar)
            return self.decode(z), mu, logvar

    return VAE()


def loss_function(torch, recon_x, x, mu, logvar):
    F = torch.nn.functional
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 784), reduction="sum")
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


def run(torch, epochs=2, seed=1, init=None, shuffle=True, n_train=512, n_test=128, batch_size=64):
    torch.manual_seed(seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    kwargs = {"num_workers": 1, "pin_memory": True} if torch.cuda.is_available() else {}
    data = torch.utils.data
    train_set = data.TensorDataset(torch.from_numpy(make_images(n_train, 11)), torch.zeros(n_train, dtype=torch.long))
    test_set = data.TensorDataset(torch.from_numpy(make_images(n_test, 12)), torch.zeros(n_test, dtype=torch.long))
    train_loader = data.DataLoader(train_set, batch_size=batch_size, shuffle=shuffle, **kwargs)
    test_loader = data.DataLoader(test_set, batch_size=batch_size, shuffle=False, **kwargs)
    model = build(torch).to(device)
    if init is not None:
        model.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in init.items()})
    start = {k: v.detach().cpu().numpy().copy() for k, v in model.state_dict().items()}
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    losses, epoch_losses = [], []

    def train(epoch):
        model.train()
        train_loss = 0
        for batch_idx, (x, _) in enumerate(train_loader):
            x = x.to(device)
            optimizer.zero_grad()
            recon_batch, mu, logvar = model(x)
            loss = loss_function(torch, recon_batch, x, mu, logvar)
            loss.backward()
            train_loss += loss.item()
            optimizer.step()
            losses.append(loss.item() / len(x))
        epoch_losses.append(train_loss / len(train_loader.dataset))

    def test(epoch):
        model.eval()
        test_loss = 0
        with torch.no_grad():
            for i, (x, _) in enumerate(test_loader):
                x = x.to(device)
                recon_batch, mu, logvar = model(x)
                test_loss += loss_function(torch, recon_batch, x, mu, logvar).item()
                if i == 0:
                    n = min(x.size(0), 8)
                    comparison = torch.cat([x[:n], recon_batch.view(batch_size, 1, 28, 28)[:n]])
                    assert tuple(comparison.shape) == (2 * n, 1, 28, 28)
        return test_loss / len(test_loader.dataset)

    for epoch in range(1, epochs + 1):
        train(epoch)
        test_loss = test(epoch)
        with torch.no_grad():
            sample = torch.randn(64, 20).to(device)
            sample = model.decode(sample).cpu()
    return {"losses": losses, "epoch_losses": epoch_losses, "test": test_loss,
            "sample_range": (float(sample.min()), float(sample.max())), "init": start}

"""Two vision tutorials on random images (numpy, the same for every framework).

dcgan: the DCGAN tutorial in small -- a ConvTranspose2d/BatchNorm2d/ReLU/Tanh
generator and a Conv2d/LeakyReLU(inplace)/BatchNorm2d/Sigmoid discriminator,
weights_init applied by class name through Module.apply, BCELoss with
torch.full labels refilled by fill_, detach() for the discriminator step,
two Adam(betas=(0.5, 0.999)) optimizers, fixed-noise samples under no_grad.
noise="numpy" draws the latent noise from numpy so that two frameworks see
the same numbers.

stn: the "Spatial Transformer Networks" tutorial in small -- a localisation
net whose last Linear starts at the identity (weight.data.zero_(),
bias.data.copy_), F.affine_grid + F.grid_sample, Dropout2d/F.dropout, nll_loss
with size_average=False in the test loop, max(1, keepdim=True)[1].eq(view_as)."""
import numpy as np


def dcgan(torch, init=None, seed=999, noise="torch", epochs=2, n=32, batch_size=8):
    nn, optim = torch.nn, torch.optim
    torch.manual_seed(seed)
    nc, nz, ngf, ndf, image_size = 3, 8, 8, 8, 16
    rng = np.random.default_rng(seed)
    images = torch.from_numpy(rng.uniform(-1, 1, (n, nc, image_size, image_size)).astype(np.float32))
    dataloader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(images, torch.zeros(n)),
                                             batch_size=batch_size, shuffle=noise == "torch", num_workers=0)
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")

    def draw(*shape):
        if noise == "torch":
            return torch.randn(*shape, device=device)
        return torch.from_numpy(rng.standard_normal(shape).astype(np.float32)).to(device)

    def weights_init(m):
        classname = m.__class__.__name__
        if classname.find("Conv") != -1:
            nn.init.normal_(m.weight.data, 0.0, 0.02)
        elif classname.find("BatchNorm") != -1:
            nn.init.normal_(m.weight.data, 1.0, 0.02)
            nn.init.constant_(m.bias.data, 0)

    class Generator(nn.Module):
        def __init__(self):
            super(Generator, self).__init__()
            self.main = nn.Sequential(
                nn.ConvTranspose2d(nz, ngf * 4, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * 4), nn.ReLU(True),
                nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 2), nn.ReLU(True),
                nn.ConvTranspose2d(ngf * 2, nc, 4, 2, 1, bias=False), nn.Tanh())

        def forward(self, input):
            return self.main(input)

    class Discriminator(nn.Module):
        def __init__(self):
            super(Discriminator, self).__init__()
            self.main = nn.Sequential(
                nn.Conv2d(nc, ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
                nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 2), nn.LeakyReLU(0.2, inplace=True),
                nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False), nn.Sigmoid())

        def forward(self, input):
            return self.main(input)

    netG, netD = Generator().to(device), Discriminator().to(device)
    netG.apply(weights_init)
    netD.apply(weights_init)
    if init is not None:
        netG.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in init["G"].items()})
        netD.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in init["D"].items()})
    start = {name: {k: v.detach().cpu().numpy().copy() for k, v in m.state_dict().items()}
             for name, m in (("G", netG), ("D", netD))}
    criterion = nn.BCELoss()
    fixed_noise = draw(16, nz, 1, 1)
    real_label, fake_label = 1., 0.
    optimizerD = optim.Adam(netD.parameters(), lr=0.0002, betas=(0.5, 0.999))
    optimizerG = optim.Adam(netG.parameters(), lr=0.0002, betas=(0.5, 0.999))
    G_losses, D_losses, stats, img_list = [], [], [], []
    for epoch in range(epochs):
        for i, data in enumerate(dataloader, 0):
            netD.zero_grad()
            real_cpu = data[0].to(device)
            b_size = real_cpu.size(0)
            label = torch.full((b_size,), real_label, dtype=torch.float, device=device)
            output = netD(real_cpu).view(-1)
            errD_real = criterion(output, label)
            errD_real.backward()
            D_x = output.mean().item()
            fake = netG(draw(b_size, nz, 1, 1))
            label.fill_(fake_label)
            output = netD(fake.detach()).view(-1)
            errD_fake = criterion(output, label)
            errD_fake.backward()
            D_G_z1 = output.mean().item()
            errD = errD_real + errD_fake
            optimizerD.step()
            netG.zero_grad()
            label.fill_(real_label)
            output = netD(fake).view(-1)
            errG = criterion(output, label)
            errG.backward()
            D_G_z2 = output.mean().item()
            optimizerG.step()
            G_losses.append(errG.item())
            D_losses.append(errD.item())
            stats.append((D_x, D_G_z1, D_G_z2))
        with torch.no_grad():
            img_list.append(netG(fixed_noise).detach().cpu().numpy())
    return {"G": G_losses, "D": D_losses, "stats": stats, "samples": img_list, "init": start}


def stn(torch, init=None, seed=0, dropout=True, shuffle=True, epochs=2, n=64):
    nn, F, optim = torch.nn, torch.nn.functional, torch.optim
    torch.manual_seed(seed)
    rng = np.random.default_rng(5)
    y = rng.integers(0, 4, n)
    x = rng.random((n, 1, 28, 28), dtype=np.float32) * 0.3
    for i, c in enumerate(y):  # a bright square whose corner gives the class
        r, q = 4 + 12 * (c // 2), 4 + 12 * (c % 2)
        x[i, 0, r:r + 8, q:q + 8] += 0.7
    data = torch.utils.data
    train_loader = data.DataLoader(data.TensorDataset(torch.from_numpy(x), torch.from_numpy(y)), batch_size=16,
                                   shuffle=shuffle, num_workers=0)
    test_loader = data.DataLoader(data.TensorDataset(torch.from_numpy(x[:32]), torch.from_numpy(y[:32])),
                                  batch_size=16, shuffle=shuffle)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    class Net(nn.Module):
        def __init__(self):
            super(Net, self).__init__()
            self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
            self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
            self.conv2_drop = nn.Dropout2d(p=0.5 if dropout else 0.0)
            self.fc1 = nn.Linear(320, 50)
            self.fc2 = nn.Linear(50, 10)
            self.localization = nn.Sequential(
                nn.Conv2d(1, 8, kernel_size=7), nn.MaxPool2d(2, stride=2), nn.ReLU(True),
                nn.Conv2d(8, 10, kernel_size=5), nn.MaxPool2d(2, stride=2), nn.ReLU(True))
            self.fc_loc = nn.Sequential(nn.Linear(10 * 3 * 3, 32), nn.ReLU(True), nn.Linear(32, 3 * 2))
            self.fc_loc[2].weight.data.zero_()
            self.fc_loc[2].bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))

        def stn(self, x):
            xs = self.localization(x).view(-1, 10 * 3 * 3)
            theta = self.fc_loc(xs).view(-1, 2, 3)
            grid = F.affine_grid(theta, x.size(), align_corners=False)
            return F.grid_sample(x, grid, align_corners=False)

        def forward(self, x):
            x = self.stn(x)
            x = F.relu(F.max_pool2d(self.conv1(x), 2))
            x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
            x = x.view(-1, 320)
            x = F.relu(self.fc1(x))
            x = F.dropout(x, p=0.5 if dropout else 0.0, training=self.training)
            return F.log_softmax(self.fc2(x), dim=1)

    model = Net().to(device)
    if init is not None:
        model.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in init.items()})
    start = {k: v.detach().cpu().numpy().copy() for k, v in model.state_dict().items()}
    optimizer = optim.SGD(model.parameters(), lr=0.05, momentum=0.5)
    losses, tests = [], []
    for epoch in range(1, epochs + 1):
        model.train()
        for data_, target in train_loader:
            data_, target = data_.to(device), target.to(device)
            optimizer.zero_grad()
            loss = F.nll_loss(model(data_), target)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        with torch.no_grad():
            model.eval()
            test_loss, correct = 0, 0
            for data_, target in test_loader:
                output = model(data_)
                test_loss += F.nll_loss(output, target, size_average=False).item()
                pred = output.max(1, keepdim=True)[1]
                correct += pred.eq(target.view_as(pred)).sum().item()
            tests.append((test_loss / len(test_loader.dataset), correct))
    with torch.no_grad():
        batch = next(iter(test_loader))[0].to(device)
        moved = float((model.stn(batch).cpu() - batch.cpu()).abs().max())
    return {"losses": losses, "tests": tests, "moved": moved, "init": start}

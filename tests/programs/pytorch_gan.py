"""Source: eriklindernoren/PyTorch-GAN (implementations/gan, wgan_gp, cyclegan), in small on random
"images" (numpy, the same for every framework): Tensor = torch.FloatTensor chosen by cuda
availability, Variable(Tensor(...).fill_(1.0), requires_grad=False) labels, latent noise through
Variable(Tensor(np.random.normal(...))), BatchNorm1d(out_feat, 0.8) (eps given positionally),
LeakyReLU(0.2, inplace=True), img.view(img.size(0), *img_shape), BCELoss; the WGAN-GP gradient penalty
(autograd.grad(create_graph=True, retain_graph=True, only_inputs=True), gradients.norm(2, dim=1));
CycleGAN's ResidualBlock (ReflectionPad2d, InstanceNorm2d), a GeneratorResNet with Upsample, the
identity/GAN/cycle losses (L1Loss, MSELoss), itertools.chain of two generators' parameters, LambdaLR
with its decay class, and a ReplayBuffer of detached fakes.

run(torch, init=None) -> dict(out={...}, init=...)."""
import itertools
from collections import defaultdict

import numpy as np

from . import same_start


def run(torch, init=None, seed=0):
    nn = torch.nn
    Variable = torch.autograd.Variable
    autograd = torch.autograd
    torch.manual_seed(seed)
    start = {} if init is None else init
    out = defaultdict(list)
    nrng = np.random.RandomState(seed)  # the repos draw noise from np.random
    cuda = True if torch.cuda.is_available() else False
    Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor
    img_shape = (1, 8, 8)
    latent_dim = 6
    imgs_all = np.random.default_rng(seed).random((4, 8, 1, 8, 8)).astype(np.float32) * 2 - 1

    class Generator(nn.Module):
        def __init__(self):
            super().__init__()

            def block(in_feat, out_feat, normalize=True):
                layers = [nn.Linear(in_feat, out_feat)]
                if normalize:
                    layers.append(nn.BatchNorm1d(out_feat, 0.8))
                layers.append(nn.LeakyReLU(0.2, inplace=True))
                return layers

            self.model = nn.Sequential(
                *block(latent_dim, 16, normalize=False), *block(16, 32), nn.Linear(32, int(np.prod(img_shape))),
                nn.Tanh())

        def forward(self, z):
            img = self.model(z)
            img = img.view(img.size(0), *img_shape)
            return img

    class Discriminator(nn.Module):
        def __init__(self):
            super().__init__()
            self.model = nn.Sequential(nn.Linear(int(np.prod(img_shape)), 32), nn.LeakyReLU(0.2, inplace=True),
                                       nn.Linear(32, 16), nn.LeakyReLU(0.2, inplace=True), nn.Linear(16, 1),
                                       nn.Sigmoid())

        def forward(self, img):
            img_flat = img.view(img.size(0), -1)
            return self.model(img_flat)

    # ---- gan.py
    adversarial_loss = torch.nn.BCELoss()
    generator = same_start(torch, start, "G", Generator())
    discriminator = same_start(torch, start, "D", Discriminator())
    optimizer_G = torch.optim.Adam(generator.parameters(), lr=0.0002, betas=(0.5, 0.999))
    optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=0.0002, betas=(0.5, 0.999))
    for epoch in range(2):
        for i in range(len(imgs_all)):
            imgs = torch.from_numpy(imgs_all[i])
            valid = Variable(Tensor(imgs.size(0), 1).fill_(1.0), requires_grad=False)
            fake = Variable(Tensor(imgs.size(0), 1).fill_(0.0), requires_grad=False)
            real_imgs = Variable(imgs.type(Tensor))
            optimizer_G.zero_grad()
            z = Variable(Tensor(nrng.normal(0, 1, (imgs.shape[0], latent_dim))))
            gen_imgs = generator(z)
            g_loss = adversarial_loss(discriminator(gen_imgs), valid)
            g_loss.backward()
            optimizer_G.step()
            optimizer_D.zero_grad()
            real_loss = adversarial_loss(discriminator(real_imgs), valid)
            fake_loss = adversarial_loss(discriminator(gen_imgs.detach()), fake)
            d_loss = (real_loss + fake_loss) / 2
            d_loss.backward()
            optimizer_D.step()
            out["g_loss"].append(g_loss.item())
            out["d_loss"].append(d_loss.item())
    out["z_dtype"] = [str(z.dtype).split(".")[-1], Tensor(2, 3).shape[0]]

    # ---- wgan_gp.py
    class Critic(nn.Module):
        def __init__(self):
            super().__init__()
            self.model = nn.Sequential(nn.Linear(int(np.prod(img_shape)), 32), nn.LeakyReLU(0.2, inplace=True),
                                       nn.Linear(32, 1))

        def forward(self, img):
            return self.model(img.view(img.shape[0], -1))

    def compute_gradient_penalty(D, real_samples, fake_samples):
        alpha = Tensor(nrng.random((real_samples.size(0), 1, 1, 1)))
        interpolates = (alpha * real_samples + ((1 - alpha) * fake_samples)).requires_grad_(True)
        d_interpolates = D(interpolates)
        fake = Variable(Tensor(real_samples.shape[0], 1).fill_(1.0), requires_grad=False)
        gradients = autograd.grad(outputs=d_interpolates, inputs=interpolates, grad_outputs=fake,
                                  create_graph=True, retain_graph=True, only_inputs=True)[0]
        gradients = gradients.view(gradients.size(0), -1)
        return ((gradients.norm(2, dim=1) - 1) ** 2).mean()

    critic = same_start(torch, start, "C", Critic())
    generator = same_start(torch, start, "G", Generator())
    optimizer_G = torch.optim.Adam(generator.parameters(), lr=0.001, betas=(0.5, 0.9))
    optimizer_D = torch.optim.Adam(critic.parameters(), lr=0.001, betas=(0.5, 0.9))
    lambda_gp, n_critic = 10, 2
    for i in range(len(imgs_all) * 2):
        real_imgs = Variable(torch.from_numpy(imgs_all[i % 4]).type(Tensor))
        optimizer_D.zero_grad()
        z = Variable(Tensor(nrng.normal(0, 1, (real_imgs.shape[0], latent_dim))))
        fake_imgs = generator(z)
        real_validity = critic(real_imgs)
        fake_validity = critic(fake_imgs)
        gradient_penalty = compute_gradient_penalty(critic, real_imgs.data, fake_imgs.data)
        d_loss = -torch.mean(real_validity) + torch.mean(fake_validity) + lambda_gp * gradient_penalty
        d_loss.backward()
        optimizer_D.step()
        optimizer_G.zero_grad()
        out["gp"].append(gradient_penalty.item())
        out["wd_loss"].append(d_loss.item())
        if i % n_critic == 0:
            fake_imgs = generator(z)
            g_loss = -torch.mean(critic(fake_imgs))
            g_loss.backward()
            optimizer_G.step()
            out["wg_loss"].append(g_loss.item())

    # ---- cyclegan
    class ResidualBlock(nn.Module):
        def __init__(self, in_features):
            super().__init__()
            self.block = nn.Sequential(
                nn.ReflectionPad2d(1), nn.Conv2d(in_features, in_features, 3), nn.InstanceNorm2d(in_features),
                nn.ReLU(inplace=True), nn.ReflectionPad2d(1), nn.Conv2d(in_features, in_features, 3),
                nn.InstanceNorm2d(in_features))

        def forward(self, x):
            return x + self.block(x)

    class GeneratorResNet(nn.Module):
        def __init__(self, input_shape, num_residual_blocks):
            super().__init__()
            channels = input_shape[0]
            out_features = 4
            model = [nn.ReflectionPad2d(channels), nn.Conv2d(channels, out_features, 2 * channels + 1),
                     nn.InstanceNorm2d(out_features), nn.ReLU(inplace=True)]
            in_features = out_features
            out_features *= 2
            model += [nn.Conv2d(in_features, out_features, 3, stride=2, padding=1), nn.InstanceNorm2d(out_features),
                      nn.ReLU(inplace=True)]
            in_features = out_features
            for _ in range(num_residual_blocks):
                model += [ResidualBlock(out_features)]
            out_features //= 2
            model += [nn.Upsample(scale_factor=2), nn.Conv2d(in_features, out_features, 3, stride=1, padding=1),
                      nn.InstanceNorm2d(out_features), nn.ReLU(inplace=True)]
            model += [nn.ReflectionPad2d(channels), nn.Conv2d(out_features, channels, 2 * channels + 1), nn.Tanh()]
            self.model = nn.Sequential(*model)

        def forward(self, x):
            return self.model(x)

    class PatchD(nn.Module):
        def __init__(self, channels):
            super().__init__()
            self.output_shape = (1, 2, 2)

            def discriminator_block(in_filters, out_filters, normalize=True):
                layers = [nn.Conv2d(in_filters, out_filters, 4, stride=2, padding=1)]
                if normalize:
                    layers.append(nn.InstanceNorm2d(out_filters))
                layers.append(nn.LeakyReLU(0.2, inplace=True))
                return layers

            self.model = nn.Sequential(*discriminator_block(channels, 4, normalize=False),
                                       *discriminator_block(4, 8), nn.ZeroPad2d((1, 0, 1, 0)),
                                       nn.Conv2d(8, 1, 4, padding=1))

        def forward(self, img):
            return self.model(img)

    class LambdaLR:
        def __init__(self, n_epochs, offset, decay_start_epoch):
            assert (n_epochs - decay_start_epoch) > 0, "Decay must start before the training session ends!"
            self.n_epochs = n_epochs
            self.offset = offset
            self.decay_start_epoch = decay_start_epoch

        def step(self, epoch):
            return 1.0 - max(0, epoch + self.offset - self.decay_start_epoch) / (self.n_epochs - self.decay_start_epoch)

    class ReplayBuffer:
        def __init__(self, max_size=50):
            self.max_size = max_size
            self.data = []

        def push_and_pop(self, data):
            to_return = []
            for element in data.data:
                element = torch.unsqueeze(element, 0)
                if len(self.data) < self.max_size:
                    self.data.append(element)
                    to_return.append(element)
                else:
                    to_return.append(element)  # (the repo swaps at random; kept deterministic here)
            return Variable(torch.cat(to_return))

    G_AB = same_start(torch, start, "G_AB", GeneratorResNet(img_shape, 1))
    G_BA = same_start(torch, start, "G_BA", GeneratorResNet(img_shape, 1))
    D_A = same_start(torch, start, "D_A", PatchD(1))
    criterion_GAN, criterion_cycle, criterion_identity = torch.nn.MSELoss(), torch.nn.L1Loss(), torch.nn.L1Loss()
    optimizer_G = torch.optim.Adam(itertools.chain(G_AB.parameters(), G_BA.parameters()), lr=0.002,
                                   betas=(0.5, 0.999))
    optimizer_D_A = torch.optim.Adam(D_A.parameters(), lr=0.002, betas=(0.5, 0.999))
    lr_scheduler_G = torch.optim.lr_scheduler.LambdaLR(optimizer_G, lr_lambda=LambdaLR(4, 0, 2).step)
    fake_A_buffer = ReplayBuffer()
    for epoch in range(4):
        real_A = Variable(torch.from_numpy(imgs_all[epoch, :4]).type(Tensor))
        real_B = Variable(torch.from_numpy(imgs_all[(epoch + 1) % 4, :4]).type(Tensor))
        valid = Variable(Tensor(np.ones((real_A.size(0), *D_A.output_shape))), requires_grad=False)
        fake = Variable(Tensor(np.zeros((real_A.size(0), *D_A.output_shape))), requires_grad=False)
        G_AB.train()
        G_BA.train()
        optimizer_G.zero_grad()
        loss_id_A = criterion_identity(G_BA(real_A), real_A)
        loss_id_B = criterion_identity(G_AB(real_B), real_B)
        loss_identity = (loss_id_A + loss_id_B) / 2
        fake_B = G_AB(real_A)
        fake_A = G_BA(real_B)
        loss_GAN = criterion_GAN(D_A(fake_A), valid)
        recov_A = G_BA(fake_B)
        loss_cycle = criterion_cycle(recov_A, real_A)
        loss_G = loss_GAN + 10.0 * loss_cycle + 5.0 * loss_identity
        loss_G.backward()
        optimizer_G.step()
        optimizer_D_A.zero_grad()
        loss_real = criterion_GAN(D_A(real_A), valid)
        fake_A_ = fake_A_buffer.push_and_pop(fake_A)
        loss_fake = criterion_GAN(D_A(fake_A_.detach()), fake)
        loss_D_A = (loss_real + loss_fake) / 2
        loss_D_A.backward()
        optimizer_D_A.step()
        lr_scheduler_G.step()
        out["cyc_G"].append(loss_G.item())
        out["cyc_D"].append(loss_D_A.item())
        out["cyc_lr"].append(optimizer_G.param_groups[0]["lr"])
    out["buffer"] = [len(fake_A_buffer.data), list(fake_A_.shape)]
    return dict(out=dict(out), init=start)

"""Reinforcement-learning programs on a hand-written environment (a walk on
0..6 from 3, reward at 6; gym-style reset()/step() returning
(obs, reward, terminated, truncated, info)).

dqn: the "Reinforcement Learning (DQN)" tutorial -- a namedtuple Transition
and deque ReplayMemory sampled by python random, epsilon-greedy by
random.random() and policy_net(state).max(1).indices.view(1, 1), a batch
built with torch.cat over zip(*transitions), a non-final mask of dtype bool
assigned through next_state_values[mask] = target_net(...).max(1).values,
gather(1, action_batch), SmoothL1Loss, AdamW(amsgrad=True),
clip_grad_value_, and the soft target update through state_dicts. All its
randomness is python's, so two frameworks from the same weights take the
same actions.

reinforce / actor_critic: pytorch/examples reinforcement_learning --
Categorical(probs).sample()/log_prob, returns normalised by
(std() + np.finfo(np.float32).eps), torch.cat / torch.stack of the per-step
losses, F.smooth_l1_loss against torch.tensor([R]) of a 0-d tensor."""
import math
import random
from collections import deque, namedtuple
from itertools import count

import numpy as np


class Walk:
    def reset(self, seed=None):
        self.s, self.t = 3, 0
        return self.obs(), {}

    def obs(self):
        return np.array([float(self.s == i) for i in range(7)] + [self.t / 20.0], dtype=np.float32)

    def step(self, a):
        self.s += 1 if a == 1 else -1
        self.t += 1
        terminated = self.s in (0, 6)
        return self.obs(), (1.0 if self.s == 6 else -0.05), terminated, self.t >= 20, {}


def dqn(torch, init=None, seed=0, episodes=40):
    nn, F, optim = torch.nn, torch.nn.functional, torch.optim
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    random.seed(seed)
    torch.manual_seed(seed)
    env = Walk()
    Transition = namedtuple("Transition", ("state", "action", "next_state", "reward"))

    class ReplayMemory(object):
        def __init__(self, capacity):
            self.memory = deque([], maxlen=capacity)

        def push(self, *args):
            self.memory.append(Transition(*args))

        def sample(self, batch_size):
            return random.sample(self.memory, batch_size)

        def __len__(self):
            return len(self.memory)

    class DQN(nn.Module):
        def __init__(self, n_observations, n_actions):
            super(DQN, self).__init__()
            self.layer1 = nn.Linear(n_observations, 32)
            self.layer2 = nn.Linear(32, 32)
            self.layer3 = nn.Linear(32, n_actions)

        def forward(self, x):
            x = F.relu(self.layer1(x))
            x = F.relu(self.layer2(x))
            return self.layer3(x)

    BATCH_SIZE, GAMMA, EPS_START, EPS_END, EPS_DECAY, TAU, LR = 16, 0.9, 0.9, 0.05, 200, 0.005, 1e-3
    n_actions = 2
    state, info = env.reset()
    policy_net = DQN(len(state), n_actions).to(device)
    target_net = DQN(len(state), n_actions).to(device)
    if init is not None:
        policy_net.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in init.items()})
    start = {k: v.detach().cpu().numpy().copy() for k, v in policy_net.state_dict().items()}
    target_net.load_state_dict(policy_net.state_dict())
    optimizer = optim.AdamW(policy_net.parameters(), lr=LR, amsgrad=True)
    memory = ReplayMemory(1000)
    steps_done = 0

    def select_action(state):
        nonlocal steps_done
        sample = random.random()
        eps_threshold = EPS_END + (EPS_START - EPS_END) * math.exp(-1. * steps_done / EPS_DECAY)
        steps_done += 1
        if sample > eps_threshold:
            with torch.no_grad():
                return policy_net(state).max(1).indices.view(1, 1)
        return torch.tensor([[random.randrange(n_actions)]], device=device, dtype=torch.long)

    losses, durations = [], []

    def optimize_model():
        if len(memory) < BATCH_SIZE:
            return
        transitions = memory.sample(BATCH_SIZE)
        batch = Transition(*zip(*transitions))
        non_final_mask = torch.tensor(tuple(map(lambda s: s is not None, batch.next_state)), device=device,
                                      dtype=torch.bool)
        non_final_next_states = torch.cat([s for s in batch.next_state if s is not None])
        state_batch = torch.cat(batch.state)
        action_batch = torch.cat(batch.action)
        reward_batch = torch.cat(batch.reward)
        state_action_values = policy_net(state_batch).gather(1, action_batch)
        next_state_values = torch.zeros(BATCH_SIZE, device=device)
        with torch.no_grad():
            next_state_values[non_final_mask] = target_net(non_final_next_states).max(1).values
        expected_state_action_values = (next_state_values * GAMMA) + reward_batch
        criterion = nn.SmoothL1Loss()
        loss = criterion(state_action_values, expected_state_action_values.unsqueeze(1))
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_value_(policy_net.parameters(), 100)
        optimizer.step()
        losses.append(loss.item())

    for i_episode in range(episodes):
        state, info = env.reset()
        state = torch.tensor(state, dtype=torch.float32, device=device).unsqueeze(0)
        for t in count():
            action = select_action(state)
            observation, reward, terminated, truncated, _ = env.step(action.item())
            reward = torch.tensor([reward], device=device)
            done = terminated or truncated
            next_state = None if terminated else torch.tensor(observation, dtype=torch.float32,
                                                              device=device).unsqueeze(0)
            memory.push(state, action, next_state, reward)
            state = next_state
            optimize_model()
            target_net_state_dict = target_net.state_dict()
            policy_net_state_dict = policy_net.state_dict()
            for key in policy_net_state_dict:
                target_net_state_dict[key] = policy_net_state_dict[key] * TAU + target_net_state_dict[key] * (1 - TAU)
            target_net.load_state_dict(target_net_state_dict)
            if done:
                durations.append(t + 1)
                break
    durations_t = torch.tensor(durations, dtype=torch.float)
    means = torch.cat((torch.zeros(9), durations_t.unfold(0, 10, 1).mean(1).view(-1)))
    return {"losses": losses, "durations": durations, "mean10": means[-1].item(), "init": start}


def policy_gradient(torch, actor_critic=False, seed=543, episodes=30):
    nn, F, optim = torch.nn, torch.nn.functional, torch.optim
    Categorical = torch.distributions.Categorical
    gamma = 0.99
    env = Walk()
    env.reset(seed=seed)
    torch.manual_seed(seed)
    eps = np.finfo(np.float32).eps.item()
    SavedAction = namedtuple("SavedAction", ["log_prob", "value"])

    class Policy(nn.Module):
        def __init__(self):
            super(Policy, self).__init__()
            self.affine1 = nn.Linear(8, 32)
            self.dropout = nn.Dropout(p=0.6)
            self.affine2 = nn.Linear(32, 2)
            self.saved_log_probs, self.rewards = [], []

        def forward(self, x):
            x = F.relu(self.dropout(self.affine1(x)))
            return F.softmax(self.affine2(x), dim=1)

    class ActorCritic(nn.Module):
        def __init__(self):
            super(ActorCritic, self).__init__()
            self.affine1 = nn.Linear(8, 32)
            self.action_head = nn.Linear(32, 2)
            self.value_head = nn.Linear(32, 1)
            self.saved_actions, self.rewards = [], []

        def forward(self, x):
            x = F.relu(self.affine1(x))
            return F.softmax(self.action_head(x), dim=-1), self.value_head(x)

    model = ActorCritic() if actor_critic else Policy()
    optimizer = optim.Adam(model.parameters(), lr=3e-2 if actor_critic else 1e-2)

    def select_action(state):
        if actor_critic:
            probs, state_value = model(torch.from_numpy(state).float())
        else:
            probs = model(torch.from_numpy(state).float().unsqueeze(0))
        m = Categorical(probs)
        action = m.sample()
        if actor_critic:
            model.saved_actions.append(SavedAction(m.log_prob(action), state_value))
        else:
            model.saved_log_probs.append(m.log_prob(action))
        return action.item()

    def finish_episode():
        R, returns = 0, []
        for r in model.rewards[::-1]:
            R = r + gamma * R
            returns.insert(0, R)
        returns = torch.tensor(returns)
        returns = (returns - returns.mean()) / (returns.std() + eps)
        optimizer.zero_grad()
        if actor_critic:
            policy_losses, value_losses = [], []
            for (log_prob, value), R in zip(model.saved_actions, returns):
                advantage = R - value.item()
                policy_losses.append(-log_prob * advantage)
                value_losses.append(F.smooth_l1_loss(value, torch.tensor([R])))
            loss = torch.stack(policy_losses).sum() + torch.stack(value_losses).sum()
            del model.saved_actions[:]
        else:
            loss = torch.cat([-log_prob * R for log_prob, R in zip(model.saved_log_probs, returns)]).sum()
            del model.saved_log_probs[:]
        loss.backward()
        optimizer.step()
        del model.rewards[:]

    running_reward, rewards = 0.0, []
    for i_episode in range(episodes):
        state, _ = env.reset()
        ep_reward = 0
        for t in range(1, 100):
            state, reward, done, _, _ = env.step(select_action(state))
            model.rewards.append(reward)
            ep_reward += reward
            if done:
                break
        running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
        rewards.append(ep_reward)
        finish_episode()
    return {"rewards": rewards, "running": running_reward, "mean_last10": float(np.mean(rewards[-10:]))}

(** * Integral: the meaning of [Delta] and [PiIntegral] (peproof/engines/objects.py)

    Two nodes of the statement language beyond SymPy's own, each ONE function of type
    [option R], as in [Sem.v]:

    - [odelta p q] ([Delta(p, q)], the Iverson bracket [p = q]): defined exactly when both
      arguments are defined and are integers (peproof/engines/wellformed.py makes an
      integer-valued argument a side condition of every [Delta]: a non-integer argument is
      ill formed, never given a value), then [1] when they are equal and [0] otherwise.
      The printer's special form [odeltaZ] (two integer terms) is proved equal to it
      ([odeltaZ_odelta]).
    - [oint f] ([PiIntegral(f, x)], the integral of [f] over [[-pi, pi]] in [x]; [f] the
      integrand as a function of [x], its own definedness included): defined exactly when
      the integrand is defined at EVERY point of [[-PI, PI]] (the engines' side conditions of
      the integrand are required on the whole interval) and Riemann integrable there
      (Coquelicot's [ex_RInt]); then Coquelicot's [RInt] over [[-PI, PI]].  The case split
      is [sig_not_dec] (one of the reals' axioms): [oint_Some] / [oint_None] state the
      definedness as an equivalence.

    The integrals are proved by the fundamental theorem of calculus: a trigonometric
    polynomial in [x] with integer frequencies ([tp]: constants, [c cos (k x)], [c sin (k x)],
    sums) has the integral [tp_int] ([tp_RInt]: antiderivatives [sin (k x) / k],
    [- cos (k x) / k], and [sin (k PI) = 0] for an integer [k]), and [oint_tp] turns an
    integrand equal to one everywhere into that value.  A printed script proves the
    integrand's identity (product to sum) pointwise; nothing here guesses integrability.
*)

From Coq Require Import ZArith Reals Lia Lra.
From Coq Require Import ClassicalDedekindReals.
From Coquelicot Require Import Hierarchy Continuity Derive RInt RInt_analysis AutoDerive.
From PEProof Require Import Defs Sem.
Open Scope R_scope.

(** ** Delta *)
Definition odelta (a b : oR) : oR :=
  match a, b with
  | Some x, Some y =>
      if isZ x then if isZ y then Some (if Req_EM_T x y then 1 else 0) else None else None
  | _, _ => None
  end.

Definition odeltaZ (p q : Z) : oR := Some (if Z.eq_dec p q then 1 else 0).

(** ** PiIntegral *)
Definition oval (f : R -> oR) (x : R) : R := match f x with Some v => v | None => 0 end.

Definition pint_ok (f : R -> oR) : Prop :=
  (forall x, - PI <= x <= PI -> f x <> None) /\ ex_RInt (oval f) (- PI) PI.

Definition oint (f : R -> oR) : oR :=
  if sig_not_dec (pint_ok f) then Some (RInt (oval f) (- PI) PI) else None.

Lemma oint_Some : forall f, pint_ok f -> oint f = Some (RInt (oval f) (- PI) PI).
Proof. intros f H; unfold oint; destruct (sig_not_dec (pint_ok f)) as [_|N]; tauto. Qed.

Lemma oint_None : forall f, ~ pint_ok f -> oint f = None.
Proof. intros f H; unfold oint; destruct (sig_not_dec (pint_ok f)) as [N|_]; tauto. Qed.

(* The meaning ends here (tests/test_coq_integral.py sabotages the text above); what follows
   is proved from it. *)

(** The printer's special form: two integer terms. *)
Lemma odeltaZ_odelta : forall p q, odeltaZ p q = odelta (oZ p) (oZ q).
Proof.
  intros p q; unfold odeltaZ, odelta, oZ; rewrite !isZ_IZR.
  destruct (Req_EM_T (IZR p) (IZR q)) as [E|E]; destruct (Z.eq_dec p q) as [H|H];
    try reflexivity; [apply eq_IZR in E; congruence | subst; congruence].
Qed.

Lemma PI_bounds : - PI < PI /\ Rmin (- PI) PI = - PI /\ Rmax (- PI) PI = PI.
Proof.
  pose proof PI_RGT_0; split; [lra|]; unfold Rmin, Rmax.
  destruct (Rle_dec (- PI) PI); split; lra.
Qed.

(** An integrand defined everywhere on the interval with the values of [g]: its integral is
    [g]'s. *)
Lemma oint_is_RInt : forall f g v, (forall x, - PI <= x <= PI -> f x = Some (g x)) ->
  is_RInt g (- PI) PI v -> oint f = Some v.
Proof.
  intros f g v Hf Hg; destruct PI_bounds as [Hl [Hmin Hmax]].
  assert (E : forall x, Rmin (- PI) PI < x < Rmax (- PI) PI -> g x = oval f x).
  { intros x Hx; rewrite Hmin, Hmax in Hx; unfold oval; rewrite Hf by lra; reflexivity. }
  assert (Hv : is_RInt (oval f) (- PI) PI v) by (apply (is_RInt_ext g); assumption).
  rewrite oint_Some.
  - f_equal; apply is_RInt_unique; exact Hv.
  - split; [intros x Hx; rewrite Hf by exact Hx; discriminate | exists v; exact Hv].
Qed.

(** An integrand continuous where it is defined, on all of the interval: its integral exists;
    an integrand undefined at one point of the CLOSED interval: no integral. *)
Lemma oint_continuous : forall f g, (forall x, - PI <= x <= PI -> f x = Some (g x)) ->
  (forall x, - PI <= x <= PI -> continuous g x) -> oint f = Some (RInt g (- PI) PI).
Proof.
  intros f g Hf Hc; apply (oint_is_RInt f g); [exact Hf|].
  apply (RInt_correct (V := R_CompleteNormedModule)), ex_RInt_continuous; intros z Hz.
  destruct PI_bounds as [_ [Hmin Hmax]]; rewrite Hmin, Hmax in Hz; apply Hc; exact Hz.
Qed.

Lemma oint_undefined_at : forall f x, - PI <= x <= PI -> f x = None -> oint f = None.
Proof. intros f x Hx E; apply oint_None; intros [H _]; exact (H x Hx E). Qed.

(** ** Trigonometric polynomials with integer frequencies *)
Inductive tp := TK (c : R) | TC (c : R) (k : Z) | TS (c : R) (k : Z) | TA (a b : tp).

Fixpoint tp_den (t : tp) (x : R) : R :=
  match t with
  | TK c => c
  | TC c k => c * cos (x * IZR k)
  | TS c k => c * sin (x * IZR k)
  | TA a b => tp_den a x + tp_den b x
  end.

Fixpoint tp_int (t : tp) : R :=
  match t with
  | TK c => 2 * PI * c
  | TC c k => if Z.eq_dec k 0 then 2 * PI * c else 0
  | TS _ _ => 0
  | TA a b => tp_int a + tp_int b
  end.

Lemma sin_kPI : forall k : Z, sin (PI * IZR k) = 0.
Proof. intro k; apply sin_eq_0_1; exists k; ring. Qed.

Lemma sin_kmPI : forall k : Z, sin (- PI * IZR k) = 0.
Proof.
  intro k; replace (- PI * IZR k) with (- (PI * IZR k)) by ring; rewrite sin_neg, sin_kPI; ring.
Qed.

Lemma cos_kmPI : forall k : Z, cos (- PI * IZR k) = cos (PI * IZR k).
Proof. intro k; replace (- PI * IZR k) with (- (PI * IZR k)) by ring; apply cos_neg. Qed.

Lemma is_RInt_ftc : forall F f v, (forall x, is_derive F x (f x)) ->
  (forall x, continuous f x) -> F PI - F (- PI) = v -> is_RInt f (- PI) PI v.
Proof.
  intros F f v HF Hc Hv; rewrite <- Hv.
  apply (is_RInt_derive F f); intros; [apply HF | apply Hc].
Qed.

Lemma tp_RInt : forall t, is_RInt (tp_den t) (- PI) PI (tp_int t).
Proof.
  induction t as [c|c k|c k|a IHa b IHb]; simpl.
  - apply (is_RInt_ftc (fun x => c * x)).
    + intro x; auto_derive; [exact I | ring].
    + intro x; apply ex_derive_continuous; auto_derive; exact I.
    + ring.
  - destruct (Z.eq_dec k 0) as [->|Hk].
    + apply (is_RInt_ftc (fun x => c * x)).
      * intro x; auto_derive; [exact I | rewrite Rmult_0_r, cos_0; ring].
      * intro x; apply ex_derive_continuous; auto_derive; exact I.
      * ring.
    + assert (Hk' : IZR k <> 0) by (apply not_0_IZR; exact Hk).
      apply (is_RInt_ftc (fun x => c * sin (x * IZR k) / IZR k)).
      * intro x; auto_derive; [exact I | field; exact Hk'].
      * intro x; apply ex_derive_continuous; auto_derive; exact I.
      * rewrite sin_kPI, sin_kmPI; field; exact Hk'.
  - destruct (Z.eq_dec k 0) as [->|Hk].
    + apply (is_RInt_ftc (fun _ => 0)).
      * intro x; auto_derive; [exact I | rewrite Rmult_0_r, sin_0; ring].
      * intro x; apply ex_derive_continuous; auto_derive; exact I.
      * ring.
    + assert (Hk' : IZR k <> 0) by (apply not_0_IZR; exact Hk).
      apply (is_RInt_ftc (fun x => - c * cos (x * IZR k) / IZR k)).
      * intro x; auto_derive; [exact I | field; exact Hk'].
      * intro x; apply ex_derive_continuous; auto_derive; exact I.
      * rewrite cos_kmPI; field; exact Hk'.
  - apply (is_RInt_plus (tp_den a) (tp_den b)); assumption.
Qed.

(** The integral of an integrand equal, at every point, to a trigonometric polynomial. *)
Lemma oint_tp : forall f t, (forall x, f x = Some (tp_den t x)) -> oint f = Some (tp_int t).
Proof. intros f t H; apply (oint_is_RInt f (tp_den t)); [intros; apply H | apply tp_RInt]. Qed.

Lemma PI_gt_3 : 3 < PI.
Proof. pose proof PI2_3_2; lra. Qed.

Lemma PI_le_4 : PI <= 4.
Proof. exact PI_4. Qed.

(** ** Sums over the [N]-th roots of unity (Delta over finite sums, the DFT)

    [dang N n j] is the angle [2 pi n j / N]; for [0 < N] the sum over [0 <= n <= N - 1] of
    [cos (dang N n j)] is [N] when [N] divides [j] and [0] otherwise, of [sin (dang N n j)]
    always [0] ([sum_cos_dang], [sum_sin_dang]: telescoping after multiplying by
    [2 sin (pi j / N)], nonzero when [N] does not divide [j]). *)
Definition dang (N n j : Z) : R := 2 * PI * IZR n * IZR j / IZR N.

Lemma dang_plus : forall N n a b, dang N n (a + b) = dang N n a + dang N n b.
Proof. intros; unfold dang, Rdiv; rewrite plus_IZR; ring. Qed.
Lemma dang_minus : forall N n a b, dang N n (a - b) = dang N n a - dang N n b.
Proof. intros; unfold dang, Rdiv; rewrite minus_IZR; ring. Qed.
Lemma dang_opp : forall N n a, dang N n (- a) = - dang N n a.
Proof. intros; unfold dang, Rdiv; rewrite opp_IZR; ring. Qed.

Lemma zsum_telescope : forall a b (g : Z -> R),
  zsum a b (fun i => g (i + 1)%Z - g i) = g (b + 1)%Z - g a.
Proof.
  intros a b g; rewrite zsum_pot.
  rewrite <- !(pot_unique (fun i => g (i + 1)%Z - g i) (fun x => g x - g 0%Z));
    [ring | ring | intro; ring | ring | intro; ring].
Qed.

Lemma sin_half_neq0 : forall N j, (0 < N)%Z -> (j mod N <> 0)%Z -> sin (PI * IZR j / IZR N) <> 0.
Proof.
  intros N j HN Hj E; apply sin_eq_0_0 in E; destruct E as [k Hk].
  assert (HN' : IZR N <> 0) by (apply not_0_IZR; lia).
  assert (E : IZR j = IZR (k * N)).
  { rewrite mult_IZR.
    replace (IZR j) with (PI * IZR j / IZR N * IZR N / PI)
      by (field; repeat split; first [exact PI_neq0 | exact HN']).
    rewrite Hk; field; exact PI_neq0. }
  apply eq_IZR in E; subst j; rewrite Z_mod_mult in Hj; congruence.
Qed.

Lemma sin_2pi_Z : forall n : Z, sin (2 * PI * IZR n) = 0.
Proof. intro n; apply sin_eq_0_1; exists (2 * n)%Z; rewrite mult_IZR; ring. Qed.
Lemma cos_2pi_Z : forall n : Z, cos (2 * PI * IZR n) = 1.
Proof.
  intro n; replace (2 * PI * IZR n) with (2 * (PI * IZR n)) by ring.
  rewrite cos_2a_sin, (sin_eq_0_1 (PI * IZR n)) by (exists n; ring); ring.
Qed.

Lemma sum_dang_mult : forall N j, (0 < N)%Z -> (j mod N = 0)%Z ->
  forall n, cos (dang N n j) = 1 /\ sin (dang N n j) = 0.
Proof.
  intros N j HN Hj n; apply Z_div_exact_full_2 in Hj; [|lia].
  assert (HN' : IZR N <> 0) by (apply not_0_IZR; lia).
  assert (E : dang N n j = 2 * PI * IZR (n * (j / N))).
  { unfold dang; rewrite Hj at 1; rewrite !mult_IZR; field; exact HN'. }
  rewrite E, cos_2pi_Z, sin_2pi_Z; split; reflexivity.
Qed.

Lemma sum_cos_dang : forall N j, (0 < N)%Z ->
  zsum 0 (N - 1) (fun n => cos (dang N n j)) = if Z.eq_dec (j mod N) 0 then IZR N else 0.
Proof.
  intros N j HN; destruct (Z.eq_dec (j mod N) 0) as [Hj|Hj].
  - rewrite (zsum_ext_all _ _ _ (fun _ => 1)) by (intro n; apply (sum_dang_mult N j HN Hj)).
    rewrite zsum_const; replace (N - 1 - 0 + 1)%Z with N by lia; ring.
  - set (h := PI * IZR j / IZR N).
    assert (Hs : sin h <> 0) by (apply sin_half_neq0; assumption).
    assert (HN' : IZR N <> 0) by (apply not_0_IZR; lia).
    apply (Rmult_eq_reg_l (2 * sin h)); [|intro E; apply Hs; lra].
    rewrite Rmult_0_r, <- zsum_scal.
    rewrite (zsum_ext_all _ _ _ (fun i => (fun i => sin ((2 * IZR i - 1) * h)) (i + 1)%Z
                                          - (fun i => sin ((2 * IZR i - 1) * h)) i)).
    + rewrite (zsum_telescope 0 (N - 1) (fun i => sin ((2 * IZR i - 1) * h))); cbv beta.
      replace (N - 1 + 1)%Z with N by lia.
      replace ((2 * IZR N - 1) * h) with (2 * PI * IZR j - h) by (unfold h; field; exact HN').
      rewrite sin_minus, sin_2pi_Z, cos_2pi_Z.
      replace ((2 * IZR 0 - 1) * h) with (- h) by (simpl; ring); rewrite sin_neg; ring.
    + intro i; cbv beta; rewrite plus_IZR.
      replace (dang N i j) with (2 * IZR i * h) by (unfold dang, h; field; exact HN').
      replace ((2 * (IZR i + 1) - 1) * h) with (2 * IZR i * h + h) by ring.
      replace ((2 * IZR i - 1) * h) with (2 * IZR i * h - h) by ring.
      rewrite sin_plus, sin_minus; ring.
Qed.

Lemma sum_sin_dang : forall N j, (0 < N)%Z ->
  zsum 0 (N - 1) (fun n => sin (dang N n j)) = 0.
Proof.
  intros N j HN; destruct (Z.eq_dec (j mod N) 0) as [Hj|Hj].
  - rewrite (zsum_ext_all _ _ _ (fun _ => 0)) by (intro n; apply (sum_dang_mult N j HN Hj)).
    apply zsum_zero.
  - set (h := PI * IZR j / IZR N).
    assert (Hs : sin h <> 0) by (apply sin_half_neq0; assumption).
    assert (HN' : IZR N <> 0) by (apply not_0_IZR; lia).
    apply (Rmult_eq_reg_l (2 * sin h)); [|intro E; apply Hs; lra].
    rewrite Rmult_0_r, <- zsum_scal.
    rewrite (zsum_ext_all _ _ _ (fun i => (fun i => - cos ((2 * IZR i - 1) * h)) (i + 1)%Z
                                          - (fun i => - cos ((2 * IZR i - 1) * h)) i)).
    + rewrite (zsum_telescope 0 (N - 1) (fun i => - cos ((2 * IZR i - 1) * h))); cbv beta.
      replace (N - 1 + 1)%Z with N by lia.
      replace ((2 * IZR N - 1) * h) with (2 * PI * IZR j - h) by (unfold h; field; exact HN').
      rewrite cos_minus, sin_2pi_Z, cos_2pi_Z.
      replace ((2 * IZR 0 - 1) * h) with (- h) by (simpl; ring); rewrite cos_neg; ring.
    + intro i; cbv beta; rewrite plus_IZR.
      replace (dang N i j) with (2 * IZR i * h) by (unfold dang, h; field; exact HN').
      replace ((2 * (IZR i + 1) - 1) * h) with (2 * IZR i * h + h) by ring.
      replace ((2 * IZR i - 1) * h) with (2 * IZR i * h - h) by ring.
      rewrite cos_plus, cos_minus; ring.
Qed.

(** Trigonometric polynomials in [dang N n j] (integer [j]) and their sums over a period. *)
Inductive dp := DK (c : R) | DC (c : R) (j : Z) | DS (c : R) (j : Z) | DA (a b : dp).

Fixpoint dp_den (N : Z) (t : dp) (n : Z) : R :=
  match t with
  | DK c => c
  | DC c j => c * cos (dang N n j)
  | DS c j => c * sin (dang N n j)
  | DA a b => dp_den N a n + dp_den N b n
  end.

Fixpoint dp_sum (N : Z) (t : dp) : R :=
  match t with
  | DK c => IZR N * c
  | DC c j => if Z.eq_dec (j mod N) 0 then IZR N * c else 0
  | DS _ _ => 0
  | DA a b => dp_sum N a + dp_sum N b
  end.

Lemma zsum_dp : forall N t, (0 < N)%Z -> zsum 0 (N - 1) (dp_den N t) = dp_sum N t.
Proof.
  intros N t HN; induction t as [c|c j|c j|a IHa b IHb]; simpl.
  - rewrite zsum_const; replace (N - 1 - 0 + 1)%Z with N by lia; ring.
  - rewrite (zsum_scal 0 (N - 1) c (fun n => cos (dang N n j))), sum_cos_dang by exact HN.
    destruct (Z.eq_dec (j mod N) 0); ring.
  - rewrite (zsum_scal 0 (N - 1) c (fun n => sin (dang N n j))), sum_sin_dang by exact HN.
    ring.
  - rewrite (zsum_plus 0 (N - 1) (dp_den N a) (dp_den N b)), IHa, IHb; reflexivity.
Qed.

(** A sum over [0 <= n <= N - 1] whose terms are defined and equal to a trigonometric
    polynomial in [dang N n _]. *)
Lemma osumZ_dp : forall N b f t, (0 < N)%Z -> b = (N - 1)%Z ->
  (forall n, (0 <= n <= b)%Z -> f n = Some (dp_den N t n)) -> osumZ 0 b f = Some (dp_sum N t).
Proof.
  intros N b f t HN -> H; rewrite (osumZ_some 0 (N - 1) f (dp_den N t)) by (lia || exact H).
  rewrite zsum_dp by exact HN; reflexivity.
Qed.

(** Divisibility by [N] of an integer near [0]: what the brackets of [dp_sum] need. *)
Lemma Z_mod0_cases : forall j N, (0 < N)%Z -> (j mod N = 0)%Z ->
  ((- N < j < N)%Z -> j = 0%Z) /\ ((0 <= j <= N)%Z -> j = 0%Z \/ j = N).
Proof.
  intros j N HN Hj; split; intro Hr.
  - destruct (Z_lt_le_dec j 0) as [Hn|Hp].
    + rewrite <- (Z_mod_plus_full j 1 N), Z.mod_small in Hj by lia; lia.
    + rewrite Z.mod_small in Hj by lia; exact Hj.
  - destruct (Z.eq_dec j N) as [E|E]; [right; exact E|left].
    rewrite Z.mod_small in Hj by lia; exact Hj.
Qed.

Lemma Z_modnz : forall j N, (0 < N)%Z -> (j mod N <> 0)%Z -> j <> 0%Z /\ j <> N.
Proof.
  intros j N HN Hj; split; intros ->; apply Hj; [apply Zmod_0_l | apply Z_mod_same_full].
Qed.

(** ** Tactics of the printed scripts *)

(** The integrand's pointwise identity: the operations evaluated, the frequencies [IZR (p +- q)]
    split and distributed over [x], the addition formulas expanded, then [ring]/[field]
    modulo [sin^2 = 1 - cos^2] at the base angles ([pyth_sq] facts, posed by the script). *)
Ltac pint_expand :=
  rewrite ?plus_IZR, ?minus_IZR, ?opp_IZR;
  rewrite ?Rmult_plus_distr_l, ?Rmult_minus_distr_l, ?Ropp_mult_distr_r_reverse;
  rewrite ?cos_plus, ?cos_minus, ?sin_plus, ?sin_minus, ?cos_neg, ?sin_neg, ?Rmult_1_r.

(** Brackets [j mod N = 0] as facts [lia] reads. *)
Ltac pint_mod :=
  repeat match goal with
  | H : (?a mod ?N = 0)%Z |- _ => pose proof (Z_mod0_cases a N ltac:(lia) H); clear H
  | H : (?a mod ?N <> 0)%Z |- _ => pose proof (Z_modnz a N ltac:(lia) H); clear H
  end.

(** The relation after every integral (sum) was replaced by its value: each bracket decided. *)
Ltac pint_close :=
  unfold odeltaZ in *; cbn [tp_int dp_sum] in *;
  repeat (match goal with
          | |- context [Z.eq_dec ?a ?b] => destruct (Z.eq_dec a b)
          end; try solve [exfalso; first [lia | pint_mod; lia]]);
  pose proof PI_gt_3; pose proof PI_RGT_0;
  first [ reflexivity | lra | field; lra | nra ].
